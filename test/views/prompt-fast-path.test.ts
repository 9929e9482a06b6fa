// rca-prompt's quick path: contexts and seeds in rca-tag's shape pass quick checks instead of the
// schema checkers, and from a line that is JSON.stringify's own text the seed's JSON and the
// text's escaped form are copied, not made again. Neither may change a verdict, a message or a byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import prompt from '../../src/transforms/prompt.js';
import tag from '../../src/transforms/tag.js';
import { checkerFor } from '../../src/contracts/checkers.js';
import { AUTHORITY_LEVELS, DOC_SUBTYPES, DOC_TYPES, NER_SEED_KEYS, VIEW_TYPES, type PromptStyle, type ViewType } from '../../src/contracts/vocabulary.js';
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { isTaggedContext, NOT_A_TAGGED_SEED, readTaggedChunk, seedKeysOf, seedShapeIn, WITHOUT_NEGATED } from '../../src/views/records/chunk-records.js';
import { buildPrompt, jsonEscaped, promptShared, promptSharedEscaped } from '../../src/views/prompt-text.js';
import { chunkTextOf } from '../../src/tagging/chunk-fields.js';
import { AppendedJson, RawJson, type JsonObject, type Processor, type SetupContext } from '../../src/runtime/stage.js';
import { canonicalMembers } from '../../src/runtime/json-spans.js';
import { parseRecordLine } from '../../src/runtime/record-line.js';
import { runInProcess } from '../support/run-in-process.js';

const STRINGS = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '"quoted"', 'back\\slash', 'a\nb\r\nc', '\t\u0000\u001f\u007f', '\u2028\u2029', '😀', '\ud800', 'x\udc00', '°F ≥ 120', '</script>', '\\u0041'),
);
const PAGES = fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.constant(null), fc.nat(100000)) }, fc.constantFrom(-1, 0, 2 ** 53, 1.5, 1e21));

/** A value of any kind, for the fields a producer other than rca-tag might get wrong. */
const ANY = fc.oneof(STRINGS, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(STRINGS, { maxLength: 2 }), fc.constant({ text: 'x' }));

/** Objects of `keys`, each key sometimes left out, sometimes of another value, sometimes an extra key, the order sometimes changed. */
function shaped(entries: ReadonlyArray<readonly [string, fc.Arbitrary<unknown>]>): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(
      fc.tuple(...entries.map(([, arb]) => fc.oneof({ weight: 40, arbitrary: arb }, ANY, fc.constant(undefined)))),
      fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, fc.tuple(fc.constantFrom('extra', 'negated', 'doc_id', 'text'), ANY)),
      fc.boolean(),
    )
    .map(([values, extra, reverse]) => {
      let pairs: Array<[string, unknown]> = entries.map(([key], i) => [key, values[i]]);
      if (reverse && pairs.length > 1 && values[0] !== undefined && Math.abs(String(values[0]).length % 7) === 0) pairs = pairs.reverse();
      const out: JsonObject = {};
      for (const [key, value] of pairs) if (value !== undefined) out[key] = value;
      if (extra !== null) out[extra[0]] = extra[1];
      return out;
    });
}

const SHAPED_CONTEXTS = shaped([
  ['doc_id', STRINGS],
  ['doc_type', fc.constantFrom(...DOC_TYPES, 'cr', 'X')],
  // Absent (a context written before doc_subtype existed), null, a subtype, or another value.
  ['doc_subtype', fc.constantFrom(undefined, null, ...DOC_SUBTYPES, 'ler', 7)],
  ['chunk_id', STRINGS],
  ['section_path', STRINGS],
  ['page_start', PAGES],
  ['page_end', PAGES],
  ['authority_level', fc.constantFrom(...AUTHORITY_LEVELS, 'Mandatory')],
  ['section_role', STRINGS],
]);

const ITEM_KEYS: Record<string, readonly string[]> = {
  measurements: ['value', 'unit', 'text'],
  temporal_relations: ['text', 'sub_label'],
  locations: ['text', 'sub_label'],
  negated: ['text', 'kind', 'cue'],
};
const seedList = (key: string): fc.Arbitrary<unknown> =>
  fc.array(ITEM_KEYS[key] === undefined ? fc.oneof({ weight: 20, arbitrary: STRINGS }, ANY) : fc.oneof({ weight: 10, arbitrary: shaped(ITEM_KEYS[key]!.map((k) => [k, STRINGS] as const)) }, ANY), { maxLength: 4 });
// Tagged records as another producer might write them: contexts and seeds within their contracts
// but with any strings, seeds with and without `negated` (and with negated mentions), any text.
const VALID_CONTEXT = fc.record({
  doc_id: STRINGS,
  doc_type: fc.constantFrom(...DOC_TYPES),
  doc_subtype: fc.constantFrom(null, ...DOC_SUBTYPES),
  chunk_id: STRINGS,
  section_path: STRINGS,
  page_start: fc.oneof(fc.constant(null), fc.nat(100000)),
  page_end: fc.oneof(fc.constant(null), fc.nat(100000)),
  authority_level: fc.constantFrom(...AUTHORITY_LEVELS),
  section_role: STRINGS,
});
const item = (key: string) => fc.record(Object.fromEntries(ITEM_KEYS[key]!.map((k) => [k, STRINGS])));
const VALID_SEED = fc
  .tuple(fc.tuple(...NER_SEED_KEYS.map((key) => fc.array((ITEM_KEYS[key] === undefined ? STRINGS : item(key)) as fc.Arbitrary<unknown>, { maxLength: 3 }))), fc.option(fc.array(item('negated'), { maxLength: 2 })))
  .map(([lists, negated]) => {
    const seed: JsonObject = Object.fromEntries(NER_SEED_KEYS.map((key, i) => [key, lists[i]]));
    if (negated !== null) seed.negated = negated;
    return seed;
  });
/** A valid value with one thing changed: a key dropped, moved last, given another value, or added; a bad item. */
function oneChange(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> {
  return fc.tuple(valid, fc.nat(), fc.nat(4), ANY).map(([value, at, how, other]) => {
    const keys = Object.keys(value);
    const key = keys[at % keys.length]!;
    const out: JsonObject = { ...value };
    if (how === 0) delete out[key];
    else if (how === 1) {
      delete out[key];
      out[key] = value[key];
    } else if (how === 2) out[key] = other;
    else if (how === 3) out.extra = other;
    else if (Array.isArray(value[key])) out[key] = [...(value[key] as unknown[]), other];
    return out;
  });
}
const CONTEXTS = fc.oneof(SHAPED_CONTEXTS, VALID_CONTEXT, oneChange(VALID_CONTEXT));
const SEEDS = fc.oneof(VALID_SEED, oneChange(VALID_SEED), shaped([...NER_SEED_KEYS, 'negated'].map((key) => [key, seedList(key)] as const)));

describe('the quick checks of context and seed', () => {
  it('accept only what the checkers accept', () => {
    fc.assert(
      fc.property(CONTEXTS, SEEDS, (context, seed) => {
        if (isTaggedContext(context)) expect(checkerFor('chunk_context')(context, 'context')).toBeNull();
        if (seedKeysOf(seed) !== null) expect(checkerFor('ner_seed')(seed, 'ner_seed')).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });

  it('cover both verdicts on the generated values (the property above is not empty)', () => {
    const sample = fc.sample(fc.tuple(CONTEXTS, SEEDS), { numRuns: 2000, seed: 7 });
    const contexts = sample.map(([c]) => isTaggedContext(c));
    const seeds = sample.map(([, s]) => seedKeysOf(s) !== null);
    expect(contexts.filter(Boolean).length).toBeGreaterThan(50);
    expect(contexts.filter((x) => !x).length).toBeGreaterThan(50);
    expect(seeds.filter(Boolean).length).toBeGreaterThan(20);
    expect(seeds.filter((x) => !x).length).toBeGreaterThan(50);
  });

  it('leave readTaggedChunk’s codes, messages and values as the checkers alone give them', () => {
    const record = fc.record({ context: fc.oneof({ weight: 6, arbitrary: CONTEXTS }, ANY, fc.constant(undefined)), ner_seed: fc.oneof({ weight: 6, arbitrary: SEEDS }, ANY, fc.constant(undefined)), text: fc.oneof(STRINGS, ANY) }, { requiredKeys: [] });
    fc.assert(
      fc.property(record, (rec) => {
        for (const key of Object.keys(rec)) if ((rec as JsonObject)[key] === undefined) delete (rec as JsonObject)[key];
        expect(readTaggedChunk(rec)).toEqual(checkersOnly(rec));
      }),
      { numRuns: 3000 },
    );
  });

  it('read the same seed shape from a seed’s JSON as from the seed (seedShapeIn, seedKeysOf)', () => {
    fc.assert(
      fc.property(SEEDS, (seed) => {
        const line = `{"ner_seed":${JSON.stringify(seed)}}`;
        if (canonicalMembers(line) === null) return;
        const shape = seedShapeIn(line, 12, line.length - 1);
        const keys = seedKeysOf(seed);
        if (keys === null) expect(shape).toBe(NOT_A_TAGGED_SEED);
        else if (keys.includes('negated')) expect(line.slice(shape, line.length - 1)).toBe(`,"negated":${JSON.stringify(seed.negated)}}`);
        else expect(shape).toBe(WITHOUT_NEGATED);
      }),
      { numRuns: 3000 },
    );
  });

  it('take a context written before doc_subtype existed, and refuse a subtype outside the vocabulary', () => {
    const context: JsonObject = { doc_id: 'd', doc_type: 'CR', doc_subtype: 'LER', chunk_id: 'c', section_path: 'A', page_start: 1, page_end: 1, authority_level: 'informational', section_role: 'cause' };
    expect(isTaggedContext(context)).toBe(true);
    const { doc_subtype: _dropped, ...older } = context;
    expect(isTaggedContext(older)).toBe(true);
    expect(checkerFor('chunk_context')(older, 'context')).toBeNull();
    expect(isTaggedContext({ ...context, doc_subtype: null })).toBe(true);
    expect(isTaggedContext({ ...context, doc_subtype: 'ler' })).toBe(false);
    expect(checkerFor('chunk_context')({ ...context, doc_subtype: 'ler' }, 'context')).not.toBeNull();
  });

  it('take rca-tag’s own contexts and seeds (the quick path is the one taken)', async () => {
    for (const line of await taggedLines()) {
      const record = JSON.parse(line) as JsonObject;
      expect(isTaggedContext(record.context)).toBe(true);
      expect(seedKeysOf(record.ner_seed)).not.toBeNull();
    }
  });
});

/** readTaggedChunk as it was: every context and seed through the checkers. */
function checkersOnly(record: JsonObject): ReturnType<typeof readTaggedChunk> {
  if (record.context === undefined || record.ner_seed === undefined) {
    return { ok: false, code: 'NOT_TAGGED', message: `record has no ${record.context === undefined ? 'context' : 'ner_seed'} (run rca-tag first)` };
  }
  const badContext = checkerFor('chunk_context')(record.context, 'context');
  if (badContext !== null) return { ok: false, code: 'BAD_CONTEXT', message: badContext };
  const badSeed = checkerFor('ner_seed')(record.ner_seed, 'ner_seed');
  if (badSeed !== null) return { ok: false, code: 'BAD_NER_SEED', message: badSeed };
  const text = chunkTextOf(record) ?? '';
  if (text.trim() === '') return { ok: false, code: 'NO_TEXT', message: 'record has no chunk text to prompt with' };
  return { ok: true, value: { context: record.context as ChunkContext, nerSeed: record.ner_seed as NerSeed, text } };
}

async function taggedLines(): Promise<string[]> {
  const chunks = [
    { chunk_id: 'c1', doc_id: 'cr-1', section_path: 'CR-2026-00123 > Description', text: 'Pump P-101A tripped at 450 psig; no evidence of cavitation was found. The AFW pump vibrates.' },
    { chunk_id: 'c2', doc_id: 'sop-2', section_path: '**SOP-1** > 6.1 Pump Start', text: 'Start pump P-2A.\nVerify flow ≥ 120 gpm within 2 minutes – record it. café 😀 "quoted" \\ back\tslash\r\nend' },
    { chunk_id: 'c3', doc_id: 'wo-3', text: 'Replace the outboard bearing of MOV-7 after the test. The valve may have degraded due to erosion.', page_start: 4, page_end: 5 },
  ];
  const r = await runInProcess(tag, [chunks.map((c) => JSON.stringify(c)).join('\n') + '\n'], ['--jobs', '1']);
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

const RECORDS = fc
  .tuple(VALID_CONTEXT, VALID_SEED, STRINGS.filter((t) => t.trim() !== ''), fc.dictionary(fc.constantFrom('type', 'raw_text', 'keywords', 'n', 'section_id', 'tag_flags'), ANY, { maxKeys: 3 }), fc.boolean())
  .map(([context, ner_seed, text, extra, textFirst]) => (textFirst ? { text, ...extra, context, ner_seed } : { ...extra, context, ner_seed, text, tag_flags: [] }));

function reference(record: JsonObject, views: readonly ViewType[], maxChars: number | undefined, style: PromptStyle = 'compact'): string {
  const prompts: Record<string, string> = {};
  let truncation = null;
  for (const view of views) {
    const built = buildPrompt(record.context as ChunkContext, record.ner_seed as NerSeed, chunkTextOf(record)!, view, { maxChars, style });
    prompts[view] = built.prompt;
    truncation = built.truncated;
  }
  return JSON.stringify({ ...record, prompts, prompt_truncation: truncation });
}

/** The output line, from the line as read (the raw line adapter, what the runner calls) or from the parsed record. */
function written(processor: Processor, line: string, raw = true): string {
  const meta = { source: 'stdin', line: 1, raw: line, bytes: Buffer.from(line) };
  if (raw && processor.lines?.kind !== 'raw') throw new Error('rca-prompt takes raw lines');
  const outcome = raw && processor.lines?.kind === 'raw' ? processor.lines.take(line, meta) : processor.process(JSON.parse(line) as JsonObject, meta);
  if ('then' in outcome) throw new Error('prompt is synchronous');
  if (outcome.reject) return `${outcome.reject.code}: ${outcome.reject.message}`;
  const out = outcome.records![0]!;
  return out instanceof AppendedJson || out instanceof RawJson ? out.json : JSON.stringify(out);
}

// rca-prompt's set-up reads only offThread, absent here: every line is made on this thread.
const ON_THIS_THREAD = {} as SetupContext;

describe('the prompt from a canonical line', () => {
  it('is byte for byte the prompt made from the record, canonical line or not', () => {
    const setups = (['compact', 'dackar'] as const)
      .flatMap((style) => [
        { views: [...VIEW_TYPES], maxChars: undefined, style },
        { views: ['rca_frame' as ViewType], maxChars: 12, style },
      ])
      .map((s) => ({ ...s, processor: prompt.create({ views: s.views, 'max-chars': s.maxChars, 'prompt-style': s.style }, ON_THIS_THREAD) as Processor }));
    fc.assert(
      fc.property(RECORDS, (record) => {
        const line = JSON.stringify(record);
        for (const { views, maxChars, style, processor } of setups) {
          const expected = reference(record, views, maxChars, style);
          expect(written(processor, line)).toBe(expected);
          expect(written(processor, line, false)).toBe(expected);
          // Not canonical: the ordinary path, the same bytes from the record's own JSON.
          expect(written(processor, line.replace('{', '{ '))).toBe(expected);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('rejects from the line as the runner and readTaggedChunk reject', () => {
    const processor = prompt.create({ views: [...VIEW_TYPES], 'max-chars': undefined, 'prompt-style': 'compact' }, ON_THIS_THREAD) as Processor;
    const lines = fc.sample(fc.tuple(RECORDS, fc.nat(6), ANY), { numRuns: 600, seed: 5 }).map(([record, how, other]) => {
      const r: JsonObject = { ...record };
      if (how === 0) r.context = { ...(r.context as JsonObject), page_start: other };
      else if (how === 1) r.ner_seed = { ...(r.ner_seed as JsonObject), tools: other };
      else if (how === 2) r.text = typeof other === 'string' ? other.replace(/\S/g, ' ') : other;
      else if (how === 3) delete r.context;
      else if (how === 4) r.ner_seed = { ...(r.ner_seed as JsonObject), extra: [] };
      else if (how === 5) return JSON.stringify(r).slice(0, -1);
      return JSON.stringify(r);
    });
    for (const line of [...lines, '[1]', '', '{"a":1}', '{"text":"   ","context":{},"ner_seed":{}}']) {
      const parsed = parseRecordLine(line);
      const expected = parsed.reject ? `${parsed.reject.code}: ${parsed.reject.message}` : written(processor, line, false);
      expect(written(processor, line)).toBe(expected);
    }
  });

  it('reads one JSON document on one line as a document, its records named by their index', async () => {
    const r = await runInProcess(prompt, ['{"chunks":[{"text":"a"}]}\n']);
    expect(r.stderr).toContain("document: 1 records at 'chunks'");
    expect(r.stderr).toContain('rca-prompt: stdin:chunks[0]: NOT_TAGGED');
  });

  it('takes the copying path for most generated records (the property above is not only the ordinary path)', () => {
    const lines = fc.sample(RECORDS, { numRuns: 500, seed: 11 }).map((r) => JSON.stringify(r));
    expect(lines.filter((l) => canonicalMembers(l) !== null).length).toBeGreaterThan(100);
  });

  it('escapes the shared part piecewise as JSON.stringify escapes it whole', () => {
    fc.assert(
      fc.property(VALID_CONTEXT, VALID_SEED, STRINGS, fc.option(fc.nat(40)), (context, seed, text, maxChars) => {
        const options = maxChars === null ? {} : { maxChars: maxChars + 1 };
        const whole = promptShared(context, seed as NerSeed, text, options);
        const parts = promptSharedEscaped(context, seed as NerSeed, text, options, {});
        expect(parts).toEqual({ shared: jsonEscaped(whole.shared), truncated: whole.truncated });
        const known = promptSharedEscaped(context, seed as NerSeed, text, options, { text: jsonEscaped(text) });
        expect(known.shared).toBe(jsonEscaped(whole.shared));
      }),
      { numRuns: 1500 },
    );
  });
});
