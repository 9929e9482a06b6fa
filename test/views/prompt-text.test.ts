import { describe, expect, it } from 'vitest';
import type { ChunkContext, NerSeed } from '../../src/contracts/chunk.js';
import { DOC_TYPES, NER_SEED_KEYS, TRUSTED_KEYS, type DocType } from '../../src/contracts/vocabulary.js';
import { buildPairPrompt, buildPrompt, COMMON_CONTRACT, compactHead, compactRuledOut, compactSeedJson, seedJson, taskParagraph } from '../../src/views/prompt-text.js';
import { emptyView, viewContentSkeleton } from '../../src/views/view-skeleton.js';
import { VIEW_KINDS } from '../../src/views/kinds/index.js';
import { VIEW_TYPES, type ViewType } from '../../src/contracts/vocabulary.js';

const CTX: ChunkContext = {
  doc_id: 'D1',
  doc_type: 'WO',
  chunk_id: 'C1',
  section_path: 'Work Order > As-Found',
  page_start: null,
  page_end: 7,
  authority_level: 'informational',
  section_role: 'as_found',
};
function seed(fields: Partial<NerSeed> = {}): NerSeed {
  return { ...(Object.fromEntries(NER_SEED_KEYS.map((k) => [k, []])) as unknown as NerSeed), ...fields };
}
const TEXT = 'Bearing housing at 172 °F. Coupling misaligned by 12 mils.';

describe('buildPrompt: doc_subtype', () => {
  it('is not in the compact prompt, whose task the five doc types choose', () => {
    const lines = (context: ChunkContext) => buildPrompt(context, seed(), TEXT, 'rca_frame').prompt.split('\n');
    expect(lines({ ...CTX, doc_type: 'CR', doc_subtype: 'LER' })).toEqual(lines({ ...CTX, doc_type: 'CR' }));
  });

  it('is a context line after doc_type in the dackar layout when the form gave one, and no line when it is null or absent', () => {
    const lines = (context: ChunkContext) => buildPrompt(context, seed(), TEXT, 'rca_frame', { style: 'dackar' }).prompt.split('\n');
    const withSubtype = lines({ ...CTX, doc_type: 'CR', doc_subtype: 'LER' });
    expect(withSubtype.slice(withSubtype.indexOf('doc_type: CR'), withSubtype.indexOf('doc_type: CR') + 2)).toEqual(['doc_type: CR', 'doc_subtype: LER']);
    expect(lines({ ...CTX, doc_subtype: null })).toEqual(lines(CTX));
    expect(lines(CTX).some((line) => line.startsWith('doc_subtype'))).toBe(false);
  });
});

describe('buildPrompt: layout of DESIGN §4 (--prompt-style dackar)', () => {
  const { prompt } = buildPrompt(CTX, seed({ measurements: [{ value: '172', unit: '°F', text: '172 °F' }] }), TEXT, 'rca_frame', { style: 'dackar' });

  it('is contract, TASK, CONTEXT, NER_SEED, CHUNK_TEXT, OUTPUT JSON in that order, blank-line separated', () => {
    const expected = [
      COMMON_CONTRACT,
      taskParagraph('WO', 'rca_frame'),
      '',
      'CONTEXT:',
      'doc_id: D1',
      'doc_type: WO',
      'chunk_id: C1',
      'section_path: Work Order > As-Found',
      'page_start: null',
      'page_end: 7',
      'authority_level: informational',
      'section_role: as_found',
      '',
      'NER_SEED (may include items not present; include only if supported by CHUNK_TEXT):',
      seedJson(seed({ measurements: [{ value: '172', unit: '°F', text: '172 °F' }] })),
      '',
      'CHUNK_TEXT:',
      TEXT,
      '',
      'OUTPUT JSON (exact keys/types):',
      JSON.stringify(emptyView('rca_frame', CTX), null, 2),
    ].join('\n');
    expect(prompt).toBe(expected);
  });

  it('starts with the common contract verbatim, then one blank line and the TASK', () => {
    expect(prompt.startsWith(
      'You are an information extraction engine for nuclear plant reliability documents.\n' +
        'Return ONLY valid JSON. Do not include markdown, comments, or extra text.\n\nRules:\n' +
        '- Use ONLY facts explicitly present in the provided CHUNK_TEXT.\n' +
        '- If a field cannot be filled from CHUNK_TEXT, use an empty array [] and add a short note to unknowns (retrieval_summary only).\n' +
        '- Preserve numbers, limits, units, and step numbers exactly as written.\n' +
        '- Prefer exact phrases from CHUNK_TEXT for technical terms.\n' +
        '- Do NOT invent causes, steps, thresholds, or conclusions.\n' +
        '- Output must match the requested JSON structure exactly (keys and types).\n\nTASK: ',
    )).toBe(true);
  });

  it('ends with the pretty-printed skeleton and its trusted citations, null pages as null', () => {
    expect(prompt.endsWith('"citations": {\n    "doc_id": "D1",\n    "section_path": "Work Order > As-Found",\n    "page_start": null,\n    "page_end": 7\n  }\n}')).toBe(true);
  });
});

// The articles of the first two views are pinned; a new view's is its kind's.
const ARTICLES: Readonly<Record<string, string>> = { retrieval_summary: 'a', rca_frame: 'an' };

describe('TASK paragraphs: one per doc type × view', () => {
  const cases = DOC_TYPES.flatMap((d) => VIEW_TYPES.map((v) => [d, v] as [DocType, ViewType]));
  it.each(cases)('%s × %s names the view and the document kind', (docType, view) => {
    const task = taskParagraph(docType, view);
    expect(task.startsWith(`TASK: Write ${ARTICLES[view] ?? VIEW_KINDS[view].task.article} ${view} JSON for one chunk of `)).toBe(true);
    expect(task).not.toMatch(/\n\n/);
  });

  it('all of them are different (ten for the first two views)', () => {
    expect(new Set(cases.map(([d, v]) => taskParagraph(d, v))).size).toBe(DOC_TYPES.length * VIEW_TYPES.length);
  });

  it.each<[DocType, ViewType, string]>([
    ['SOP', 'rca_frame', 'constraints: holds, cautions, prerequisites'],
    ['CR', 'rca_frame', 'hypotheses: possible causes only where CHUNK_TEXT states them'],
    ['WO', 'retrieval_summary', 'as-found and as-left'],
    ['ECA', 'rca_frame', 'constraints: the assumptions and limitations'],
    ['OTHER', 'retrieval_summary', 'extractive and conservative'],
  ])('%s × %s keeps the DESIGN intent (%s)', (docType, view, phrase) => {
    expect(taskParagraph(docType, view)).toContain(phrase);
  });
});

describe('NER_SEED line', () => {
  it('has all 18 keys in DESIGN order, compact, non-ASCII kept, whatever the input order', () => {
    const shuffled = Object.fromEntries([...NER_SEED_KEYS].reverse().map((k) => [k, k === 'locations' ? [{ text: 'Élévation 468′', sub_label: 'elevation' }] : []])) as unknown as NerSeed;
    const line = seedJson(shuffled);
    expect(Object.keys(JSON.parse(line))).toEqual([...NER_SEED_KEYS]);
    expect(line).toContain('"Élévation 468′"');
    expect(line).not.toContain('\n');
    expect(line).not.toContain('\\u');
  });

  it('includes fm_ids (a reference defect was to drop them)', () => {
    expect(JSON.parse(seedJson(seed({ fm_ids: ['FM-1', 'FM-2'] }))).fm_ids).toEqual(['FM-1', 'FM-2']);
  });
});

describe('buildPrompt: determinism, context values, --max-chars', () => {
  it('is byte-identical across calls', () => {
    expect(buildPrompt(CTX, seed(), TEXT, 'retrieval_summary')).toEqual(buildPrompt(CTX, seed(), TEXT, 'retrieval_summary'));
  });

  it('keeps each CONTEXT value on its line', () => {
    const { prompt } = buildPrompt({ ...CTX, section_path: 'A\n> B' }, seed(), TEXT, 'rca_frame');
    expect(prompt).toContain('\nsection_path: A > B\n');
  });

  it('cuts the chunk text and reports it', () => {
    const { prompt, truncated } = buildPrompt(CTX, seed(), TEXT, 'rca_frame', { maxChars: 40, style: 'dackar' });
    expect(truncated).toEqual({ text_chars: TEXT.length, kept_chars: 26, cut_at: 'sentence' });
    expect(prompt).toContain('CHUNK_TEXT:\nBearing housing at 172 °F.\n\nOUTPUT JSON');
    const compact = buildPrompt(CTX, seed(), TEXT, 'rca_frame', { maxChars: 40 });
    expect(compact.truncated).toEqual(truncated);
    expect(compact.prompt.endsWith('CHUNK_TEXT:\nBearing housing at 172 °F.')).toBe(true);
  });

  it('no cut when the text fits', () => {
    expect(buildPrompt(CTX, seed(), TEXT, 'rca_frame', { maxChars: 1000 }).truncated).toBeNull();
  });
});

describe('RULED_OUT: what the text excludes, told to the model', () => {
  const negated = [
    { text: 'reactor trip', kind: 'outcomes', cue: 'No' },
    { text: 'fouling', kind: 'mechanisms', cue: 'no evidence of' },
  ];

  it('lists each negated mention with its kind and cue, after the seed and before the text', () => {
    const { prompt } = buildPrompt(CTX, seed({ negated }), TEXT, 'rca_frame', { style: 'dackar' });
    const lines = prompt.split('\n');
    const at = lines.findIndex((l) => l.startsWith('RULED_OUT'));
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.startsWith('NER_SEED')));
    expect(at).toBeLessThan(lines.indexOf('CHUNK_TEXT:'));
    expect(lines.slice(at + 1, at + 3)).toEqual(['- reactor trip (outcomes; cue: "No")', '- fouling (mechanisms; cue: "no evidence of")']);
  });

  it('the seed line itself keeps its 18 keys: negated mentions are not offered as terms', () => {
    expect(Object.keys(JSON.parse(seedJson(seed({ negated }))))).toEqual([...NER_SEED_KEYS]);
  });

  it('no section when nothing is ruled out, or for a seed written without the list', () => {
    for (const style of ['dackar', 'compact'] as const) {
      const without = buildPrompt(CTX, seed(), TEXT, 'rca_frame', { style }).prompt;
      expect(buildPrompt(CTX, seed({ negated: [] }), TEXT, 'rca_frame', { style }).prompt).toBe(without);
      // The compact head says once what a RULED_OUT line means; the chunk's part has none.
      expect(without.slice(style === 'compact' ? compactHead('WO', 'rca_frame').length : 0)).not.toContain('RULED_OUT');
    }
  });
});

describe('buildPrompt: the compact layout (the default)', () => {
  const full = seed({ equipment_ids: ['P-101A'], measurements: [{ value: '172', unit: '°F', text: '172 °F' }], locations: [{ text: 'north bay', sub_label: 'area' }], negated: [{ text: 'fouling', kind: 'mechanisms', cue: 'no evidence of' }] });
  const { prompt } = buildPrompt(CTX, full, TEXT, 'rca_frame');

  it('is contract, TASK and the content skeleton, then CONTEXT, the seed, RULED_OUT and the text', () => {
    const expected = [
      compactHead('WO', 'rca_frame'),
      '',
      'CONTEXT:',
      'section_path: Work Order > As-Found',
      'section_role: as_found',
      'NER_SEED: {"equipment_ids":["P-101A"],"measurements":["172 °F"],"locations":["north bay"]}',
      'RULED_OUT: ["fouling"]',
      '',
      'CHUNK_TEXT:',
      TEXT,
    ].join('\n');
    expect(prompt).toBe(expected);
    expect(compactHead('WO', 'rca_frame')).toBe(
      [
        COMMON_CONTRACT,
        'TASK: Write an rca_frame JSON for one chunk of a nuclear plant reliability document.',
        VIEW_KINDS.rca_frame.task.rules,
        '',
        'OUTPUT JSON (exact keys/types):',
        JSON.stringify(viewContentSkeleton('rca_frame'), null, 2),
        '',
        'INPUT: the chunk follows, in this order:',
        '- CONTEXT: where the chunk sits in its document (section_path, section_role), when known;',
        '- NER_SEED: terms found by rules; may include items not present; include only if supported by CHUNK_TEXT;',
        '- RULED_OUT: what CHUNK_TEXT says did not occur or was excluded; never list it as a symptom, outcome or mechanism;',
        '- CHUNK_TEXT: the text itself.',
        '',
        'DOCUMENT: the chunk is from a work order (WO).',
        VIEW_KINDS.rca_frame.task.focus.WO,
      ].join('\n'),
    );
  });

  it('keeps all of the head but the document line the same across doc types (a slot moving to another document keeps its cache)', () => {
    const wo = compactHead('WO', 'retrieval_summary');
    const sop = compactHead('SOP', 'retrieval_summary');
    let shared = 0;
    while (wo[shared] === sop[shared]) shared++;
    expect(wo.slice(shared)).toMatch(/^[^\n]*\n[^\n]*$/);
    expect(wo.slice(0, shared)).toContain('OUTPUT JSON (exact keys/types):');
  });

  it('asks for no trusted field: the skeleton holds the content fields alone', () => {
    for (const view of VIEW_TYPES) {
      const skeleton = viewContentSkeleton(view);
      for (const key of TRUSTED_KEYS) expect(skeleton).not.toHaveProperty(key);
      expect(Object.keys(skeleton)).toEqual(Object.keys(emptyView(view, CTX)).filter((k) => !(TRUSTED_KEYS as readonly string[]).includes(k)));
    }
  });

  it('puts everything that does not depend on the chunk first: two chunks of a doc type and view share the whole head', () => {
    const other = buildPrompt({ ...CTX, chunk_id: 'C2', section_path: 'Work Order > As-Left' }, seed(), 'Another text.', 'rca_frame').prompt;
    let shared = 0;
    while (prompt[shared] === other[shared]) shared++;
    expect(shared).toBeGreaterThanOrEqual(compactHead('WO', 'rca_frame').length + '\n\nCONTEXT:\nsection_path: Work Order > As-'.length);
  });

  it('leaves out the chunk id (the model writes none) and the section lines the chunk has no value for', () => {
    const bare = buildPrompt({ ...CTX, section_path: '', section_role: 'unknown' }, seed(), TEXT, 'rca_frame').prompt;
    expect(bare.slice(compactHead('WO', 'rca_frame').length)).toBe(['', '', 'CONTEXT:', '', 'CHUNK_TEXT:', TEXT].join('\n'));
    expect(prompt).not.toContain('C1');
  });

  it('gives the seed only its non-empty lists, measurements as their text, and nothing for an empty seed', () => {
    expect(compactSeedJson(seed())).toBeNull();
    expect(buildPrompt(CTX, seed(), TEXT, 'rca_frame').prompt.slice(compactHead('WO', 'rca_frame').length)).not.toContain('NER_SEED');
    expect(compactSeedJson(seed({ fm_ids: ['FM_AIR_INLEAK'], temporal_relations: [{ text: 'after start', sub_label: 'order' }] }))).toBe('{"fm_ids":["FM_AIR_INLEAK"],"temporal_relations":["after start"]}');
    expect(compactRuledOut([])).toBeNull();
    expect(compactRuledOut([{ text: 'leak', kind: 'outcomes', cue: 'no' }, { text: 'leak', kind: 'outcomes', cue: 'not' }])).toBe('["leak"]');
  });

  it('is much shorter than the dackar prompt of the same chunk', () => {
    expect(prompt.length).toBeLessThan(buildPrompt(CTX, full, TEXT, 'rca_frame', { style: 'dackar' }).prompt.length);
  });

  it('the pair prompt holds both TASKs and one skeleton with each view under its name, then the same chunk part', () => {
    const pair = buildPairPrompt(CTX, full, TEXT, VIEW_TYPES).prompt;
    for (const view of VIEW_TYPES) expect(pair).toContain(`${view}: ${VIEW_KINDS[view].task.focus.WO}`);
    const tail = prompt.slice(compactHead('WO', 'rca_frame').length);
    expect(pair.endsWith(tail)).toBe(true);
    const skeleton = JSON.parse(pair.slice(pair.indexOf('OUTPUT JSON (exact keys/types):\n') + 32, pair.indexOf('\n\nINPUT:')));
    expect(skeleton).toEqual(Object.fromEntries(VIEW_TYPES.map((v) => [v, viewContentSkeleton(v)])));
  });
});
