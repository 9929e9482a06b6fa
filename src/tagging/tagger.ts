import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import { AppendedJson, type JsonObject, type Outcome } from '../runtime/stage.js';
import { ContextBuilder, type ChunkFacts, type ContextOptions } from './context.js';
import type { Gazetteer } from './gazetteer.js';
import type { KeywordLists } from './keyword-lists.js';
import { readingOf } from './layout.js';
import { nerSeedJson } from './seed-json.js';
import { TagFlagCounts } from './tag-summary.js';
import { hasAddedKeys, NerSeeder, tagMembers, withTagFields } from './tag-record.js';

export interface TaggerConfig extends ContextOptions {
  gazetteer: Gazetteer;
  keywords: KeywordLists;
}

export interface Added {
  context: ChunkContext;
  section_id: string;
  ner_seed: NerSeed;
  tag_flags: string[];
}

/** The tag stage on one thread: context, section id, NER seed and flags of each record, in input order. */
export class Tagger {
  private readonly seeder: NerSeeder;
  readonly flagCounts = new TagFlagCounts();

  constructor(
    config: TaggerConfig,
    // Shared with the worker path of `--jobs N`, which continues where this one stopped.
    private readonly contexts: ContextBuilder = new ContextBuilder(config),
  ) {
    this.seeder = new NerSeeder(config.gazetteer, config.keywords);
  }

  process(record: JsonObject, meta: { raw: string; bytes?: Buffer }): Outcome {
    const facts = this.contexts.build(record);
    return this.outcome(record, meta, facts, this.seeder.seed(facts.reading.text, facts.reading.formLabels));
  }

  /**
   * process() with the seed made by `seed` (on the run's worker thread, for a large record): the
   * context is built now, in input order, as process() builds it; the rest when the seed comes.
   */
  async processWith(record: JsonObject, meta: { raw: string; bytes?: Buffer }, seed: (text: string) => Promise<NerSeed>): Promise<Outcome> {
    const facts = this.contexts.build(record);
    return this.outcome(record, meta, facts, await seed(facts.text));
  }

  private outcome(record: JsonObject, meta: { raw: string; bytes?: Buffer }, facts: ChunkFacts, seed: NerSeed): Outcome {
    this.flagCounts.add(facts.flags);
    // Appending to the line as read keeps every input byte and skips re-serialising the record;
    // only a record that already carries one of our fields must be rebuilt (keys replaced in place).
    if (!hasAddedKeys(record) && facts.renames.length === 0) return { records: [new AppendedJson(meta.raw, tagMembers(facts, nerSeedJson(seed)), meta.bytes)] };
    return { records: [withTagFields(record, facts, seed)] };
  }

  tag(record: JsonObject): Added {
    const facts = this.contexts.build(record);
    return { context: facts.context, section_id: facts.section_id, ner_seed: this.seeder.seed(facts.reading.text, facts.reading.formLabels), tag_flags: facts.flags };
  }

  /** The seed of a chunk text, read as a reader does (layout.ts). */
  seed(text: string): NerSeed {
    const reading = readingOf(text);
    return this.seeder.seed(reading.text, reading.formLabels);
  }
}
