// Which of the fields named for the views (--from-fields) ever held a view: rca-validate and
// rca-flatten warn the same way, from this one tally, when a field name matches nothing.
import { type ViewFields } from './view-types.js';
import { VIEW_TYPES, type ViewType } from '../contracts/vocabulary.js';

export class ViewFieldTally {
  private records = 0;
  private readonly found = new Set<ViewType>();

  /** `explicit`: the fields were named on the command line, so each one is expected somewhere. */
  constructor(
    private readonly fields: ViewFields,
    private readonly explicit: boolean,
  ) {}

  /** Counts one record and notes the view fields it has a value in (null counts as none). */
  see(record: Record<string, unknown>): void {
    this.records++;
    for (const view of VIEW_TYPES) {
      const field = this.fields[view];
      if (field !== undefined && record[field] !== undefined && record[field] !== null) this.found.add(view);
    }
  }

  /** True when at least one record held at least one view. */
  get anyFound(): boolean {
    return this.found.size > 0;
  }

  /** End-of-run warnings: no view anywhere, or (fields given explicitly) a field no record has. */
  summary(): string[] {
    if (this.records === 0) return [];
    const named = VIEW_TYPES.filter((v) => this.fields[v] !== undefined);
    if (this.found.size === 0) return [`no views found in fields ${named.map((v) => this.fields[v]).join(', ')} (see --from-fields)`];
    if (!this.explicit) return [];
    return named
      .filter((v) => !this.found.has(v))
      .map((v) => `no ${v} view found: no record has field ${this.fields[v]} (see --from-fields)`);
  }
}
