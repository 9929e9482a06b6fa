#!/usr/bin/env node
// Prints a short table of summarized JSONL files (what rca-summarize wrote): records, views ok,
// flagged, failed and replayed from the cache, one row per document (--by document) or per file.
// --sections FILE adds the section count of each document, from rca-count-sections output;
// --section-summaries FILE the sections of each document that got a section_summary (rca-summarize
// --view section_summary output).
// --corpus (what `make corpus` prints): one row per file, with its rejects (OUT/x.rejects.jsonl,
// OUT/x.summarize-rejects.jsonl) and the files that failed (OUT/x.failed instead of the file);
// exit status 1 when a file failed.
// Usage: node examples/summary-table.mjs [--by document|file] [--sections FILE] [--section-summaries FILE] [--corpus] FILE...
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { VIEW_TYPES } from '../dist/contracts/vocabulary.js';

const { values, positionals } = parseArgs({
  options: { by: { type: 'string', default: 'file' }, sections: { type: 'string' }, 'section-summaries': { type: 'string' }, corpus: { type: 'boolean', default: false } },
  allowPositionals: true,
});
if (positionals.length === 0 || !['file', 'document'].includes(values.by)) {
  console.error('usage: node examples/summary-table.mjs [--by document|file] [--sections FILE] [--section-summaries FILE] [--corpus] FILE...');
  process.exit(2);
}

// The chunk views of this build (npm run build makes dist/).
const VIEWS = VIEW_TYPES;
const lines = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

const sections = new Map();
if (values.sections) for (const s of lines(values.sections)) sections.set(s.doc_id, (sections.get(s.doc_id) ?? 0) + 1);
const summarised = new Map();
if (values['section-summaries']) for (const s of lines(values['section-summaries'])) if (s.section_summary) summarised.set(s.doc_id, (summarised.get(s.doc_id) ?? 0) + 1);

const corpus = values.corpus && values.by === 'file';
const countLines = (file) => (existsSync(file) ? lines(file).length : 0);
const rows = new Map();
const row = (name, type) => {
  let r = rows.get(name);
  if (!r) rows.set(name, (r = { name, type, records: 0, ok: 0, flagged: 0, failed: 0, cached: 0, rejects: 0, status: 'built' }));
  return r;
};
const failedFiles = [];
for (const file of positionals) {
  if (values.by === 'file') row(file, '');
  if (corpus) {
    const base = file.replace(/\.summarized\.jsonl$/, '');
    const r = row(file, '');
    r.rejects = countLines(`${base}.rejects.jsonl`) + countLines(`${base}.summarize-rejects.jsonl`);
    if (!existsSync(file)) {
      r.status = `FAILED: ${existsSync(`${base}.failed`) ? readFileSync(`${base}.failed`, 'utf8').trim() : 'not built'}`;
      failedFiles.push(file);
      continue;
    }
  }
  for (const rec of lines(file)) {
    const r = values.by === 'document' ? row(String(rec.doc_id ?? rec.context?.doc_id ?? '?'), rec.context?.doc_type ?? '') : row(file, '');
    r.records++;
    for (const view of VIEWS) {
      const gen = rec.generation?.[view];
      if (!gen) continue;
      if (rec[view] === null) r.failed++;
      else if ((rec.flags?.[view] ?? []).length > 0) r.flagged++;
      else r.ok++;
      if (gen.cached) r.cached++;
    }
  }
}

const total = { name: 'total', type: '', records: 0, ok: 0, flagged: 0, failed: 0, cached: 0, rejects: 0, status: failedFiles.length === 0 ? 'built' : `${failedFiles.length} FAILED` };
for (const r of rows.values()) for (const k of ['records', 'ok', 'flagged', 'failed', 'cached', 'rejects']) total[k] += r[k];
const withSections = values.by === 'document' && values.sections !== undefined;
const withSummaries = values.by === 'document' && values['section-summaries'] !== undefined;
const perDocument = (counts, r) => String(r.name === 'total' ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(r.name) ?? 0));
const header = [values.by, ...(values.by === 'document' ? ['type'] : []), 'records', ...(withSections ? ['sections'] : []), ...(withSummaries ? ['summarized'] : []), 'views ok', 'flagged', 'failed', 'from cache', ...(corpus ? ['rejects', 'status'] : [])];
const cells = (r) => [
  r.name,
  ...(values.by === 'document' ? [r.type] : []),
  String(r.records),
  ...(withSections ? [perDocument(sections, r)] : []),
  ...(withSummaries ? [perDocument(summarised, r)] : []),
  String(r.ok),
  String(r.flagged),
  String(r.failed),
  String(r.cached),
  ...(corpus ? [String(r.rejects), r.status] : []),
];
const table = [header, ...[...rows.values()].map(cells), cells(total)];
const widths = header.map((_, i) => Math.max(...table.map((t) => t[i].length)));
const leftAligned = (i) => i < (values.by === 'document' ? 2 : 1) || (corpus && i === header.length - 1);
for (const t of table) console.log(t.map((c, i) => (leftAligned(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd());
if (corpus && total.rejects > 0) console.log(`${total.rejects} input ${total.rejects === 1 ? 'line' : 'lines'} rejected, each with its line number in OUT/x.rejects.jsonl (rca-summarize's in OUT/x.summarize-rejects.jsonl); the files were built without them`);
if (failedFiles.length > 0) {
  console.log(`${failedFiles.length} of ${positionals.length} ${positionals.length === 1 ? 'file' : 'files'} failed (the reason is in OUT/x.failed; run the same command again to retry them)`);
  process.exit(1);
}
