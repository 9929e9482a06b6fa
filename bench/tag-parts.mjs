#!/usr/bin/env node
// In-memory timing of each part of the tag stage's per-record work over a JSONL corpus.
// Usage: node bench/tag-parts.mjs [--input /tmp/c10.jsonl] [--runs 3] [--dist dist] [--only part,...]
// Every part runs once to warm up, then `runs` times; the median is reported as MB/s of the
// corpus (all line bytes, not just the texts), so parts compare with JSON.parse and end to end.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpus, ROOT } from './measure.mjs';

const { values } = parseArgs({
  options: {
    input: { type: 'string' },
    runs: { type: 'string', default: '3' },
    dist: { type: 'string', default: join(ROOT, 'dist') },
    only: { type: 'string' },
  },
});
const input = values.input ?? (await corpus(10));
const dist = resolve(values.dist);
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);

const { buildGazetteer } = await load('tagging/gazetteer.js');
const { buildKeywordLists } = await load('tagging/keyword-lists.js');
const { extractPatterns } = await load('tagging/extractors.js');
const { parseLexiconCsv } = await load('tagging/lexicon.js');
const { ContextBuilder } = await load('tagging/context.js');
const { Tagger } = await load('transforms/tag.js');
const { NerSeeder } = await load('tagging/tag-record.js');
const { nerSeedJson } = await load('tagging/seed-json.js');
const { labelSpans, negationScopesOfTokens, ScopeIndex } = await load('tagging/negation.js');
const { buildPhraseLists, TokenBuffer } = await load('tagging/phrase-matcher.js');

const readData = (rel) => readFileSync(join(ROOT, 'data', rel), 'utf8');
const builtin = buildGazetteer(parseLexiconCsv(readData('lexicon/rca-default.csv'), 'builtin'));
const referenceFile = join(ROOT, 'test/fixtures/dackar/tag_keywords_lists.derived.csv');
const reference = buildGazetteer(parseLexiconCsv(readFileSync(referenceFile, 'utf8'), referenceFile));
const keywords = buildKeywordLists({
  temporalQualifiers: readData('keywords/temporal_qualifiers.csv'),
  temporalRelations: readData('keywords/temporal_relations.csv'),
  locations: readData('keywords/locations.csv'),
  conjectures: readData('keywords/conjectures.csv'),
});

const lines = readFileSync(input, 'utf8').split('\n').filter((line) => line.trim() !== '');
const records = lines.map((line) => JSON.parse(line));
const texts = records.map((r) => (typeof r.text === 'string' ? r.text : typeof r.raw_text === 'string' ? r.raw_text : ''));
const corpusMB = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0) / 2 ** 20;
const textMB = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 2 ** 20;

const stepTokens = new TokenBuffer();
const stepMatcher = buildPhraseLists([builtin.phraseList, ...keywords.phraseLists]);
/** NerSeeder.seed up to step `upTo` (see the NER steps parts); returns a count of what was found. */
function nerSteps(upTo) {
  let n = 0;
  for (const text of texts) {
    const tokens = stepTokens.load(text);
    n += tokens.count;
    if (upTo < 1.5) continue;
    const scopes = negationScopesOfTokens(tokens);
    n += scopes.length;
    if (upTo < 2) continue;
    const labels = labelSpans(text);
    const marks = scopes.length === 0 && labels.length === 0 ? null : new ScopeIndex(scopes, labels);
    if (upTo < 2.5) continue;
    if (upTo < 3) {
      stepMatcher.scan(tokens, () => n++);
      continue;
    }
    const extras = { negated: [], places: [] };
    const lexicalScan = builtin.begin(tokens, marks, extras);
    const keywordScan = keywords.begin(tokens, marks);
    stepMatcher.scan(tokens, (list, start, end, payloads, first, last) => {
      if (list === 0) lexicalScan.onMatch(start, end, payloads, first, last);
      else keywordScan.onMatch(list - 1, start, end, payloads, first, last);
    });
    const lexical = lexicalScan.finish();
    const kw = keywordScan.finish();
    n += lexical.components.length + kw.locations.length;
    if (upTo < 4) continue;
    const patterns = extractPatterns(text);
    n += patterns.measurements.length;
    if (upTo < 5) continue;
    // Key order as NerSeeder builds it (the lexicon's places, which it adds to locations, aside).
    const seed = {
      systems: lexical.systems, equipment_ids: patterns.equipment_ids, components: lexical.components,
      mechanisms: lexical.mechanisms, outcomes: lexical.outcomes, surveillance_actions: lexical.surveillance_actions,
      maintenance_actions: lexical.maintenance_actions, properties: lexical.properties, tools: lexical.tools,
      fm_ids: patterns.fm_ids, doc_refs: patterns.doc_refs, alarm_ids: patterns.alarm_ids, measurements: patterns.measurements,
      temporal_refs: patterns.temporal_refs, temporal_relations: kw.temporal_relations, temporal_qualifiers: kw.temporal_qualifiers,
      locations: kw.locations, conjectures: kw.conjectures, negated: extras.negated,
    };
    n += nerSeedJson(seed).length;
  }
  return n;
}

const newTagger = (gazetteer) => new Tagger({ docTypeMode: 'auto', authority: null, gazetteer, keywords });

// Each part returns something derived from its results so the work cannot be optimised away.
const parts = {
  'JSON.parse': () => lines.reduce((n, line) => n + Object.keys(JSON.parse(line)).length, 0),
  'ContextBuilder.build': () => {
    const contexts = new ContextBuilder({ docTypeMode: 'auto', authority: null });
    return records.reduce((n, r) => n + contexts.build(r).section_id.length, 0);
  },
  'gazetteer.match (built-in)': () => texts.reduce((n, t) => n + builtin.match(t).components.length, 0),
  'gazetteer.match (reference)': () => texts.reduce((n, t) => n + reference.match(t).components.length, 0),
  'keywordLists.match': () => texts.reduce((n, t) => n + keywords.match(t).conjectures.length, 0),
  extractPatterns: () => texts.reduce((n, t) => n + extractPatterns(t).equipment_ids.length, 0),
  // The whole NER of the stage as it runs per record: one tokenization, negation, one scan for the
  // gazetteer and keyword lists, the pattern extractors, then the seed's JSON.
  'NerSeeder.seed + nerSeedJson (built-in)': () => {
    const seeder = new NerSeeder(builtin, keywords);
    return texts.reduce((n, t) => n + nerSeedJson(seeder.seed(t)).length, 0);
  },
  // The same NER built up step by step (built-in lexicon), as NerSeeder.seed does it: each step's
  // cost is its row less the one before.
  'NER steps: 1 tokenizer': () => nerSteps(1),
  'NER steps: 2a + negation scopes': () => nerSteps(1.5),
  'NER steps: 2 + heading labels': () => nerSteps(2),
  'NER steps: 3a + one phrase scan, matches only counted': () => nerSteps(2.5),
  'NER steps: 3 + one phrase scan with the gazetteer and keyword handlers': () => nerSteps(3),
  'NER steps: 4 + pattern extractors': () => nerSteps(4),
  'NER steps: 5 + seed JSON': () => nerSteps(5),
  'Tagger.process (reference, no parse)': () => {
    const tagger = newTagger(reference);
    return records.reduce((n, r, k) => n + tagger.process(r, { raw: lines[k] }).records.length, 0);
  },
  'parse + Tagger.process (reference)': () => {
    const tagger = newTagger(reference);
    return lines.reduce((n, line) => n + tagger.process(JSON.parse(line), { raw: line }).records.length, 0);
  },
};

const only = values.only?.split(',');
const runs = Number(values.runs);
console.log(`corpus ${corpusMB.toFixed(1)} MB (${records.length} records, text ${((100 * textMB) / corpusMB).toFixed(0)}% of bytes), dist ${dist}, median of ${runs}`);
console.log('| part | MB/s of corpus (median) | ms median | ms min | CPU ms median |');
console.log('|---|---|---|---|---|');
for (const [name, run] of Object.entries(parts)) {
  if (only && !only.some((o) => name.includes(o))) continue;
  run();
  const times = [];
  const cpu = [];
  for (let k = 0; k < runs; k++) {
    const start = process.hrtime.bigint();
    const used = process.cpuUsage();
    run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const { user, system } = process.cpuUsage(used);
    cpu.push((user + system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  console.log(`| ${name} | ${(corpusMB / (ms / 1000)).toFixed(0)} | ${ms.toFixed(0)} | ${times[0].toFixed(0)} | ${cpu[Math.floor(cpu.length / 2)].toFixed(0)} |`);
}
