import type { ChunkContext, NerSeed } from '../contracts/chunk.js';
import { AUTHORITY_LEVELS, DOC_TYPES, type AuthorityLevel } from '../contracts/vocabulary.js';
import { defineStage, RawJson, type JsonObject, type Outcome, type SetupContext } from '../runtime/stage.js';
import { UsageError } from '../runtime/exit-codes.js';
import { ContextBuilder, type ContextOptions } from '../tagging/context.js';
import { buildGazetteer, type Gazetteer } from '../tagging/gazetteer.js';
import { buildKeywordLists, type KeywordLists } from '../tagging/keyword-lists.js';
import { extractPatterns } from '../tagging/extractors.js';
import { parseLexiconCsv, type LexiconEntry } from '../tagging/lexicon.js';
import { TokenBuffer } from '../tagging/phrase-matcher.js';
import { contextJson, jsonString, nerSeedJson, stringArrayJson } from '../tagging/seed-json.js';

const BUILTIN_LEXICON = 'builtin';

export default defineStage({
  name: 'tag',
  summary: 'add the trusted context (doc type, section role, citations) and the NER seed to each chunk',
  description: `Adds to every chunk record:
  context    {doc_id, doc_type, chunk_id, section_path, page_start, page_end, authority_level, section_role}
  section_id a stable id of (doc_id, normalised section path), the key that links chunks to sections
  ner_seed   the 18 NER lists (systems ... conjectures) from the lexicon and the pattern extractors
  tag_flags  what the chunk lacked (missing_text, missing_chunk_id, ...); [] when complete
Input fields used: chunk_id, doc_id (or document.sourceId), doc_type, doc_name, source_path,
section_path / sectionPath / section_segments (else section_title / section), text (else raw_text),
page_start / page_end (else page). All other fields pass through untouched, in order.`,
  examples: [
    'rca-tag < chunks.jsonl > tagged.jsonl',
    'rca-tag --doc-type detect --rejects rejects.jsonl chunks.jsonl',
    'rca-tag --lexicon builtin --lexicon plant-terms.csv < chunks.jsonl',
  ],
  options: {
    'doc-type': {
      type: 'string',
      placeholder: 'TYPE',
      default: 'auto',
      choices: ['auto', 'detect', ...DOC_TYPES],
      help: 'auto: keep a valid upstream doc_type, else detect per document; detect: always detect; or force one type',
    },
    authority: {
      type: 'string',
      placeholder: 'LEVEL',
      choices: AUTHORITY_LEVELS,
      help: 'override the authority level (default: mandatory for SOP, informational otherwise)',
    },
    lexicon: {
      type: 'list',
      placeholder: 'FILE',
      help: `gazetteer CSV (sheet,column_header,label,term or label,term) replacing the built-in one; '${BUILTIN_LEXICON}' names the built-in lexicon`,
    },
  },
  create(options, setup) {
    const lexiconFiles = options.lexicon.length ? options.lexicon : [BUILTIN_LEXICON];
    const entries: LexiconEntry[] = [];
    for (const file of lexiconFiles) {
      const path = file === BUILTIN_LEXICON ? setup.dataFile('lexicon/rca-default.csv') : file;
      try {
        entries.push(...parseLexiconCsv(setup.readText(path), file));
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`--lexicon ${file}: ${(err as Error).message}`);
      }
    }
    return new Tagger({
      docTypeMode: options['doc-type'],
      authority: (options.authority as AuthorityLevel | undefined) ?? null,
      gazetteer: buildGazetteer(entries),
      keywords: loadKeywordLists(setup),
    });
  },
});

function loadKeywordLists(setup: SetupContext): KeywordLists {
  const read = (name: string) => setup.readText(setup.dataFile(`keywords/${name}.csv`));
  return buildKeywordLists({
    temporalQualifiers: read('temporal_qualifiers'),
    temporalRelations: read('temporal_relations'),
    locations: read('locations'),
    conjectures: read('conjectures'),
  });
}

interface TaggerConfig extends ContextOptions {
  gazetteer: Gazetteer;
  keywords: KeywordLists;
}

export class Tagger {
  private readonly contexts: ContextBuilder;
  // One tokenization per record serves the gazetteer and all four keyword lists.
  private readonly tokens = new TokenBuffer();

  constructor(private readonly config: TaggerConfig) {
    this.contexts = new ContextBuilder(config);
  }

  process(record: JsonObject, meta: { raw: string }): Outcome {
    const added = this.tag(record);
    // Appending to the line as read keeps every input byte and skips re-serialising the record;
    // only a record that already carries one of our fields must be rebuilt (keys replaced in place).
    if (!hasAny(record, ADDED_KEYS)) {
      const raw = meta.raw.trimEnd();
      const body = raw.slice(0, raw.length - 1).trimEnd();
      const sep = body.endsWith('{') ? '' : ',';
      // Hand-written JSON of the known shapes (see seed-json.ts), key order as in ADDED_KEYS.
      const fields =
        `"context":${contextJson(added.context)},"section_id":${jsonString(added.section_id)}` +
        `,"ner_seed":${nerSeedJson(added.ner_seed)},"tag_flags":${stringArrayJson(added.tag_flags)}`;
      return { records: [new RawJson(`${body}${sep}${fields}}`)] };
    }
    return { records: [{ ...record, ...added }] };
  }

  tag(record: JsonObject): Added {
    const facts = this.contexts.build(record);
    return { context: facts.context, section_id: facts.section_id, ner_seed: this.seed(facts.text), tag_flags: facts.flags };
  }

  seed(text: string): NerSeed {
    const tokens = this.tokens.load(text);
    const lexical = this.config.gazetteer.matchTokens(tokens);
    const patterns = extractPatterns(text);
    const keywords = this.config.keywords.matchTokens(tokens);
    return {
      systems: lexical.systems,
      equipment_ids: patterns.equipment_ids,
      components: lexical.components,
      mechanisms: lexical.mechanisms,
      outcomes: lexical.outcomes,
      surveillance_actions: lexical.surveillance_actions,
      maintenance_actions: lexical.maintenance_actions,
      properties: lexical.properties,
      tools: lexical.tools,
      fm_ids: patterns.fm_ids,
      doc_refs: patterns.doc_refs,
      alarm_ids: patterns.alarm_ids,
      measurements: patterns.measurements,
      temporal_refs: patterns.temporal_refs,
      temporal_relations: keywords.temporal_relations,
      temporal_qualifiers: keywords.temporal_qualifiers,
      locations: keywords.locations,
      conjectures: keywords.conjectures,
    };
  }
}

interface Added {
  context: ChunkContext;
  section_id: string;
  ner_seed: NerSeed;
  tag_flags: string[];
}
const ADDED_KEYS = ['context', 'section_id', 'ner_seed', 'tag_flags'] as const satisfies readonly (keyof Added)[];

function hasAny(record: JsonObject, keys: readonly string[]): boolean {
  for (const k of keys) if (Object.hasOwn(record, k)) return true;
  return false;
}
