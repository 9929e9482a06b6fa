// The run summary of rca-tag: how many chunks were tagged and which flags they carry, so a corpus
// with no chunk ids, dropped pages or renamed fields says so on stderr (and in --stats).

export class TagFlagCounts {
  private tagged = 0;
  private flagged = 0;
  private readonly counts = new Map<string, number>();

  add(flags: readonly string[]): void {
    this.tagged++;
    if (flags.length === 0) return;
    this.flagged++;
    for (const flag of flags) {
      // `context_kept_as:upstream_context` counts as its kind.
      const colon = flag.indexOf(':');
      const kind = colon < 0 ? flag : flag.slice(0, colon);
      this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    }
  }

  /** The same from the JSON text of the flags (the --jobs path holds them as text). */
  addJson(flagsJson: string): void {
    this.add(flagsJson === '[]' ? [] : (JSON.parse(flagsJson) as string[]));
  }

  summary(): string[] {
    const kinds = [...this.counts].map(([kind, n]) => `${kind} ${n}`);
    const chunks = `${this.tagged} chunk${this.tagged === 1 ? '' : 's'} tagged`;
    return [this.flagged === 0 ? `${chunks}, none flagged` : `${chunks}, ${this.flagged} flagged: ${kinds.join(', ')}`];
  }

  stats(): Record<string, unknown> {
    return {
      chunks_tagged: this.tagged,
      chunks_flagged: this.flagged,
      tag_flag_counts: Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    };
  }
}
