// rca report: one self-contained HTML page for a corpus build (the OUT/ folder `make corpus`
// writes): a table per document, flags and grounding by kind, failures by cause, tokens and
// throughput, small inline SVG charts, and for a chosen chunk (--chunk ID) its views with every
// item's evidence highlighted in the source text. Chunk text and model output are untrusted: every
// value is HTML-escaped, the page holds no script, and its Content-Security-Policy allows nothing
// but its own inline style (by hash), so a chunk holding <script> or onerror= renders as text.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { EXIT } from '../runtime/exit-codes.js';
import { checkInputPaths } from '../runtime/options.js';
import type { OptionsSpec } from '../runtime/stage.js';
import { SeenDocuments } from '../sections/seen-documents.js';
import { splitSentences } from '../views/evidence-match.js';
import { commandHelp, exitOnSignal, parseCommandArgs, type Command, type CommandIO } from './command.js';
import { VIEW_NAMES } from '../contracts/vocabulary.js';
import { costText, parsePrice, tokenCost, type Price } from '../generation/price.js';

const OPTIONS = {
  price: { type: 'string', placeholder: 'PRICES', help: "IN,OUT[,CACHED]: prices per million prompt and output tokens (and prompt tokens from the engine's cache, default IN): adds the cost per document and for the build" },
  chunk: { type: 'string', placeholder: 'ID', help: "show this chunk's views and evidence (a chunk_id, or a section_id for a section summary)" },
  output: { type: 'string', short: 'o', placeholder: 'FILE', help: 'where to write the page; - for stdout [default: OUT/report.html]' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;

const USAGE = commandHelp(`Usage: rca report OUT/ [--chunk ID] [--output FILE] [--price IN,OUT[,CACHED]]

Writes one HTML page about a corpus build: the records of OUT/*.summarized.jsonl (as make corpus
names them; a FILE argument is read as given) and, when present, the --stats files OUT/*.stats.json.
The page shows, per document, records and views ok / flagged / failed / from the cache and the
tokens of the views made (prompt tokens, those of them served from the engine's prompt cache where
the server said, output tokens; with --price their cost); flags and evidence grounding (exact,
normalised, partial, none) by kind; failed views by cause; throughput when stats files exist;
records that repeat a chunk (or section) of their document already read (duplicate_chunk_id:
counted, and named on stderr); and with --chunk ID that chunk's text with the evidence of every
item of its views highlighted. The page is self-contained (no network, no external assets, no
script) and safe to open on untrusted text.

`,
  OPTIONS,
  `Exit status: 0 written; 1 --chunk ID not found (the page is still written); 2 usage error (a build folder
or file that is missing or unreadable); 3 a file fails while it is read, or the page cannot be written;
130 interrupted (SIGINT/SIGTERM) while it reads: no page is written.
`,
);

const VIEWS = VIEW_NAMES;
const MATCHES = ['exact', 'normalised', 'partial', 'none'] as const;
type Match = (typeof MATCHES)[number];

interface DocRow {
  doc: string;
  type: string;
  records: number;
  ok: number;
  flagged: number;
  failed: number;
  cached: number;
  tokens: Tokens;
}

/** Tokens of views made in the runs read: `cachedKnown` views said how many prompt tokens came from the engine's cache. */
interface Tokens {
  prompt: number;
  cached: number;
  cachedKnown: number;
  output: number;
}

const noTokens = (): Tokens => ({ prompt: 0, cached: 0, cachedKnown: 0, output: 0 });

function addTokens(into: Tokens, more: Tokens): Tokens {
  into.prompt += more.prompt;
  into.cached += more.cached;
  into.cachedKnown += more.cachedKnown;
  into.output += more.output;
  return into;
}

/** A view's tokens: `generation.<view>.tokens`, or the prompt_tokens / output_tokens of records written before it. */
function viewTokens(gen: Json): Tokens {
  const t = isObject(gen.tokens) ? gen.tokens : { prompt: gen.prompt_tokens, cached: null, output: gen.output_tokens };
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { prompt: count(t.prompt), cached: count(t.cached), cachedKnown: typeof t.cached === 'number' ? 1 : 0, output: count(t.output) };
}

interface Totals {
  docs: Map<string, DocRow>;
  /** Per flag kind: how many flags of it, and how many views carry at least one. */
  flagKinds: Map<string, { flags: number; views: number }>;
  failures: Map<string, number>;
  matches: Record<Match, number>;
  matchesByView: Map<string, Record<Match, number>>;
  novelEntities: number;
  entities: number;
  tokens: Tokens;
  files: string[];
  badLines: number;
  /** Records whose (document, chunk id) an earlier record of the build had (each still counted). */
  duplicates: { count: number; first: string | null };
  chunk: Record<string, unknown> | null;
  stats: { wallSeconds: number; records: number; files: number };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const command: Command = {
  name: 'report',
  summary: 'write one self-contained HTML page about a corpus build (rca report OUT/)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca report: ${line}\n`);
    // It writes only once everything is read: a signal ends it at once (the process ends after run).
    const beforeWrite = exitOnSignal(io, 'rca report', 'no page is written');
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, io.argv, true);
    } catch (err) {
      say(`${(err as Error).message} (see rca report --help)`);
      return EXIT.USAGE;
    }
    if (parsed.values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    if (parsed.positionals.length !== 1) {
      say(parsed.positionals.length === 0 ? 'which build? (rca report OUT/)' : `expected one folder or file, got ${parsed.positionals.length} (see rca report --help)`);
      return EXIT.USAGE;
    }
    let price: Price | null = null;
    if (parsed.values.price !== undefined) {
      try {
        price = parsePrice(parsed.values.price);
      } catch (err) {
        say((err as Error).message);
        return EXIT.USAGE;
      }
    }
    const target = parsed.positionals[0]!;
    let files: string[];
    let statsFiles: string[] = [];
    let folder: string | null = null;
    try {
      checkInputPaths([target], { label: 'build', folders: true });
    } catch (err) {
      say((err as Error).message);
      return EXIT.USAGE;
    }
    try {
      if (statSync(target).isDirectory()) {
        folder = target;
        const names = readdirSync(target).sort();
        files = names.filter((n) => n.endsWith('.summarized.jsonl')).map((n) => join(target, n));
        statsFiles = names.filter((n) => n.endsWith('.stats.json')).map((n) => join(target, n));
      } else files = [target];
    } catch (err) {
      say(`cannot read '${target}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return EXIT.FATAL;
    }
    if (files.length === 0) {
      say(`no *.summarized.jsonl files in '${target}'`);
      return EXIT.USAGE;
    }
    try {
      checkInputPaths([...files, ...statsFiles]);
    } catch (err) {
      say((err as Error).message);
      return EXIT.USAGE;
    }
    const output = parsed.values.output ?? (folder === null ? null : join(folder, 'report.html'));
    if (output === null) {
      say('--output FILE is needed when the build is given as a file');
      return EXIT.USAGE;
    }
    let totals: Totals;
    try {
      totals = await collect(files, statsFiles, parsed.values.chunk ?? null);
    } catch (err) {
      say(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return EXIT.FATAL;
    }
    const retrieval = folder === null ? null : retrievalRows(join(folder, 'retrieval.jsonl'));
    const page = renderPage(totals, parsed.values.chunk ?? null, folder ?? target, price, retrieval);
    beforeWrite();
    try {
      if (output === '-') io.stdout.write(page);
      else writeFileSync(output, page);
    } catch (err) {
      say(`cannot write '${output}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return EXIT.FATAL;
    }
    if (totals.badLines > 0) say(`${totals.badLines} lines were not JSON objects and are not counted`);
    if (totals.duplicates.count > 0) {
      const n = totals.duplicates.count;
      say(`duplicate_chunk_id: ${n} ${n === 1 ? 'record repeats' : 'records repeat'} a chunk (or section) of its document already read, each counted; the first at ${totals.duplicates.first}`);
    }
    if (parsed.values.chunk !== undefined && totals.chunk === null) {
      say(`chunk '${parsed.values.chunk}' not found in the build`);
      return EXIT.RECORDS_FAILED;
    }
    if (output !== '-') say(`wrote ${output}`);
    return EXIT.OK;
  },
};

export default command;

/** Reads the build line by line (a corpus need not fit in memory): counts, and the chosen chunk. */
export async function collect(files: readonly string[], statsFiles: readonly string[], chunkId: string | null): Promise<Totals> {
  const t: Totals = {
    docs: new Map(),
    flagKinds: new Map(),
    failures: new Map(),
    matches: { exact: 0, normalised: 0, partial: 0, none: 0 },
    matchesByView: new Map(),
    novelEntities: 0,
    entities: 0,
    tokens: noTokens(),
    files: files.map((f) => basename(f)),
    badLines: 0,
    duplicates: { count: 0, first: null },
    chunk: null,
    stats: { wallSeconds: 0, records: 0, files: 0 },
  };
  // Fingerprints of (document, chunk id), not the ids: a corpus-sized build stays a few bytes a chunk.
  const seen = new SeenDocuments();
  for (const file of files) {
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    let lineNumber = 0;
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        t.badLines++;
        continue;
      }
      if (!isObject(rec)) {
        t.badLines++;
        continue;
      }
      addRecord(t, rec);
      const id = recordKey(rec);
      if (id !== null) {
        if (seen.has(id.key)) {
          t.duplicates.count++;
          t.duplicates.first ??= `${file}:${lineNumber}, ${id.label}`;
        } else seen.add(id.key);
      }
      if (chunkId !== null && t.chunk === null && (rec.chunk_id === chunkId || rec.section_id === chunkId)) t.chunk = rec;
    }
  }
  for (const file of statsFiles) {
    const s: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isObject(s) || typeof s.wall_seconds !== 'number') continue;
    t.stats.files++;
    t.stats.wallSeconds += s.wall_seconds;
    if (typeof s.records === 'number') t.stats.records += s.records;
  }
  return t;
}

/** What a record is known by in a build: its document and chunk id (a section: its section id). */
function recordKey(rec: Json): { key: string; label: string } | null {
  const context = isObject(rec.context) ? rec.context : {};
  const doc = String(rec.doc_id ?? context.doc_id ?? '');
  const section = rec.kind === 'section';
  const id = section ? rec.section_id : (rec.chunk_id ?? context.chunk_id);
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  return { key: JSON.stringify([section ? 's' : 'c', doc, String(id)]), label: `${section ? 'section' : 'chunk'} ${JSON.stringify(String(id))} of document ${JSON.stringify(doc)}` };
}

function addRecord(t: Totals, rec: Json): void {
  const context = isObject(rec.context) ? rec.context : {};
  const doc = String(rec.doc_id ?? context.doc_id ?? '?');
  let row = t.docs.get(doc);
  if (row === undefined) t.docs.set(doc, (row = { doc, type: String(context.doc_type ?? (rec.kind === 'section' ? 'section' : '')), records: 0, ok: 0, flagged: 0, failed: 0, cached: 0, tokens: noTokens() }));
  row.records++;
  const generation = isObject(rec.generation) ? rec.generation : {};
  // A section record's own flags are count-sections'; its view's are under view_flags.
  const flags = rec.kind === 'section' ? (isObject(rec.view_flags) ? rec.view_flags : {}) : isObject(rec.flags) ? rec.flags : {};
  const evidence = isObject(rec.evidence) ? rec.evidence : {};
  for (const view of VIEWS) {
    const gen = generation[view];
    const viewFlags = Array.isArray(flags[view]) ? (flags[view] as unknown[]).map(String) : [];
    if (isObject(gen)) {
      if (rec[view] === null || rec[view] === undefined) {
        row.failed++;
        const code = isObject(gen.error) ? String(gen.error.code ?? 'UNKNOWN') : 'UNKNOWN';
        t.failures.set(code, (t.failures.get(code) ?? 0) + 1);
      } else if (viewFlags.length > 0) row.flagged++;
      else row.ok++;
      if (gen.cached === true) row.cached++;
      // A view replayed from the response cache cost nothing in the run that wrote it.
      if (gen.cached !== true) {
        const tokens = viewTokens(gen);
        addTokens(row.tokens, tokens);
        addTokens(t.tokens, tokens);
      }
    } else if (isObject(rec[view])) {
      // Validated outside generate (rca-validate): counted by its flags.
      if (viewFlags.length > 0) row.flagged++;
      else row.ok++;
    }
    const kinds = new Set<string>();
    for (const flag of viewFlags) {
      const kind = flag.includes(':') ? flag.slice(0, flag.indexOf(':')) : flag;
      const entry = t.flagKinds.get(kind) ?? { flags: 0, views: 0 };
      entry.flags++;
      if (!kinds.has(kind)) entry.views++;
      kinds.add(kind);
      t.flagKinds.set(kind, entry);
    }
    const ev = evidence[view];
    if (isObject(ev) && Array.isArray(ev.items)) {
      let byView = t.matchesByView.get(view);
      if (byView === undefined) t.matchesByView.set(view, (byView = { exact: 0, normalised: 0, partial: 0, none: 0 }));
      for (const item of ev.items) {
        if (!isObject(item) || item.role === 'free' || !MATCHES.includes(item.match as Match)) continue;
        t.matches[item.match as Match]++;
        byView[item.match as Match]++;
      }
      if (isObject(ev.grounding)) {
        if (typeof ev.grounding.entities === 'number') t.entities += ev.grounding.entities;
        if (typeof ev.grounding.novel_entities === 'number') t.novelEntities += ev.grounding.novel_entities;
      }
    }
  }
}

// --- HTML -------------------------------------------------------------------------------------

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2327;background:#fff}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dcdcde}
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:right}
th:first-child,td:first-child{text-align:left}code{font-size:.92em}
.charts{display:flex;flex-wrap:wrap;gap:2rem}.charts figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
.source{white-space:pre-wrap;border:1px solid #dcdcde;padding:.8rem;background:#fafafa;font-family:ui-monospace,monospace;font-size:13px}
mark{padding:0 1px}mark.exact{background:#b8e6bf}mark.normalised{background:#c5d9ed}mark.partial{background:#f5e6ab}
.none{color:#b32d2e}.checks{color:#b32d2e}.muted{color:#646970}ol.items li{margin:.15rem 0}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** Text for HTML content and attribute values: & < > " ' escaped. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const COLOURS: Record<string, string> = { ok: '#00a32a', flagged: '#dba617', failed: '#d63638', exact: '#00a32a', normalised: '#2271b1', partial: '#dba617', none: '#d63638' };

/** A horizontal bar chart: one bar per entry, its value written beside it. */
function barChart(title: string, entries: readonly [string, number][], colour = (_k: string) => '#2271b1'): string {
  const width = 360;
  const row = 20;
  const label = 150;
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const height = Math.max(row, entries.length * row);
  const bars = entries
    .map(([key, value], i) => {
      const w = Math.round(((width - label - 50) * value) / max);
      const y = i * row;
      return `<text x="0" y="${y + 14}" font-size="12">${escapeHtml(key)}</text><rect x="${label}" y="${y + 3}" width="${w}" height="${row - 6}" fill="${colour(key)}"></rect><text x="${label + w + 4}" y="${y + 14}" font-size="12">${value}</text>`;
    })
    .join('');
  return `<figure><figcaption>${escapeHtml(title)}</figcaption><svg width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}">${bars}</svg></figure>`;
}

function pct(n: number, d: number): string {
  return d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`;
}

// OUT/retrieval.jsonl: what `make corpus QUESTIONS=FILE` had rca eval-retrieval --json write.
function retrievalRows(path: string): Json[] | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  return text.split('\n').flatMap((line) => {
    try {
      const row = JSON.parse(line) as unknown;
      return isObject(row) ? [row] : [];
    } catch {
      return [];
    }
  });
}

const RETRIEVAL_COLUMNS = ['set', 'split', 'mode', 'text', 'questions', 'recall_at_1', 'recall_at_5', 'recall_at_10', 'mrr', 'ndcg_at_10', 'stage1_miss'] as const;

function retrievalSection(rows: Json[] | null): string {
  if (rows === null) return '';
  const note = [...new Set(rows.map((r) => String(r.vectors ?? '')))].map(escapeHtml).join('; ');
  const body = rows.map((r) => `<tr${r.baseline === true ? ' class="muted"' : ''}>${RETRIEVAL_COLUMNS.map((c) => `<td>${escapeHtml(r[c] ?? '')}</td>`).join('')}</tr>`).join('');
  return `<h2>Retrieval</h2><p>rca eval-retrieval on the build's index (OUT/retrieval.jsonl; ${note}); flat search over the raw text is the baseline row of each split.</p><table><thead><tr>${RETRIEVAL_COLUMNS.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}


/** A row's token cells: prompt tokens, of them from the engine's cache (— where no server said), output, and the cost at --price. */
function tokenCells(tokens: Tokens, price: Price | null): string {
  const cached = tokens.cachedKnown === 0 ? '—' : String(tokens.cached);
  const cost = price === null ? '' : `<td>${costText(tokenCost({ prompt: tokens.prompt, cached: tokens.cachedKnown === 0 ? null : tokens.cached, output: tokens.output }, price).total)}</td>`;
  return `<td>${tokens.prompt}</td><td>${cached}</td><td>${tokens.output}</td>${cost}`;
}

function renderPage(t: Totals, chunkId: string | null, title: string, price: Price | null = null, retrieval: Json[] | null = null): string {
  const rows = [...t.docs.values()].sort((a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : 0));
  const total = rows.reduce(
    (s, r) => ({ ...s, records: s.records + r.records, ok: s.ok + r.ok, flagged: s.flagged + r.flagged, failed: s.failed + r.failed, cached: s.cached + r.cached, tokens: addTokens(s.tokens, r.tokens) }),
    { doc: 'total', type: '', records: 0, ok: 0, flagged: 0, failed: 0, cached: 0, tokens: noTokens() },
  );
  const costHead = price === null ? '' : '<th>cost</th>';
  const docTable = `<table><thead><tr><th>document</th><th>type</th><th>records</th><th>views ok</th><th>flagged</th><th>failed</th><th>cached</th><th>prompt tokens</th><th>from the engine's cache</th><th>output tokens</th>${costHead}</tr></thead><tbody>${[...rows, total]
    .map((r) => `<tr><td>${escapeHtml(r.doc)}</td><td>${escapeHtml(r.type)}</td><td>${r.records}</td><td>${r.ok}</td><td>${r.flagged}</td><td>${r.failed}</td><td>${r.cached}</td>${tokenCells(r.tokens, price)}</tr>`)
    .join('')}</tbody></table>`;
  const flagEntries = [...t.flagKinds].sort((a, b) => b[1].flags - a[1].flags || (a[0] < b[0] ? -1 : 1));
  // A view may carry a kind more than once (ungrounded_number:4, ungrounded_number:7): both counts.
  const flagTable = flagEntries.length === 0 ? '<p class="muted">No view carries a flag.</p>' : `<table><thead><tr><th>flag</th><th>flags</th><th>views</th></tr></thead><tbody>${flagEntries.map(([k, n]) => `<tr><td><code>${escapeHtml(k)}</code></td><td>${n.flags}</td><td>${n.views}</td></tr>`).join('')}</tbody></table>`;
  const duplicates = t.duplicates.count === 0 ? '' : `<p class="none"><code>duplicate_chunk_id</code>: ${t.duplicates.count} ${t.duplicates.count === 1 ? 'record repeats' : 'records repeat'} a chunk (or section) of its document already read, each counted above; the first at ${escapeHtml(t.duplicates.first)}. <code>rca merge</code> tells which outputs hold it twice.</p>`;
  const items = MATCHES.reduce((s, m) => s + t.matches[m], 0);
  const groundingRows = [...t.matchesByView].map(([view, m]) => {
    const n = MATCHES.reduce((s, k) => s + m[k], 0);
    return `<tr><td>${escapeHtml(view)}</td><td>${n}</td>${MATCHES.map((k) => `<td>${pct(m[k], n)}</td>`).join('')}</tr>`;
  });
  const groundingTable = `<table><thead><tr><th>view</th><th>items</th>${MATCHES.map((k) => `<th>${k}</th>`).join('')}</tr></thead><tbody>${groundingRows.join('')}<tr><td>all</td><td>${items}</td>${MATCHES.map((k) => `<td>${pct(t.matches[k], items)}</td>`).join('')}</tr></tbody></table><p>Novel entities: ${t.novelEntities} of ${t.entities} entity names (${pct(t.novelEntities, t.entities)}).</p>`;
  const failures = [...t.failures].sort((a, b) => b[1] - a[1]);
  const failureTable = failures.length === 0 ? '<p class="muted">No view failed.</p>' : `<table><thead><tr><th>cause</th><th>views</th></tr></thead><tbody>${failures.map(([k, n]) => `<tr><td><code>${escapeHtml(k)}</code></td><td>${n}</td></tr>`).join('')}</tbody></table>`;
  const throughput = t.stats.files === 0 ? '<span class="muted">no stats files (run with --stats OUT/x.stats.json)</span>' : `${t.stats.records} records in ${t.stats.wallSeconds.toFixed(1)} s of run time over ${t.stats.files} runs: ${t.stats.wallSeconds > 0 ? (t.stats.records / t.stats.wallSeconds).toFixed(1) : '—'} records/s`;
  const charts = `<div class="charts">${barChart(
    'views',
    [
      ['ok', total.ok],
      ['flagged', total.flagged],
      ['failed', total.failed],
    ],
    (k) => COLOURS[k]!,
  )}${barChart(
    'evidence of items',
    MATCHES.map((m) => [m, t.matches[m]]),
    (k) => COLOURS[k]!,
  )}${flagEntries.length > 0 ? barChart('flags by kind', flagEntries.slice(0, 8).map(([k, n]) => [k, n.flags])) : ''}</div>`;
  const chunk = chunkId === null ? '' : `<h2>Chunk ${escapeHtml(chunkId)}</h2>${t.chunk === null ? '<p class="none">Not found in the build.</p>' : renderChunk(t.chunk)}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>rca report: ${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>rca report: ${escapeHtml(title)}</h1>
<p class="muted">${t.files.length} ${t.files.length === 1 ? 'file' : 'files'}: ${t.files.map(escapeHtml).join(', ')}</p>
${charts}
<h2>Documents</h2>${docTable}${duplicates}
<h2>Flags by kind</h2>${flagTable}
<h2>Grounding</h2>${groundingTable}
<h2>Failures by cause</h2>${failureTable}
<h2>Tokens and throughput</h2><p>Prompt tokens ${t.tokens.prompt}${t.tokens.cachedKnown === 0 ? '' : ` (${t.tokens.cached} of them from the engine's prompt cache)`}, output tokens ${t.tokens.output} (views made in these runs; views from the response cache cost none)${price === null ? '' : `; cost ${costText(tokenCost({ prompt: t.tokens.prompt, cached: t.tokens.cachedKnown === 0 ? null : t.tokens.cached, output: t.tokens.output }, price).total)} at ${price.prompt} / ${price.output} / ${price.cached} per million prompt / output / cached tokens`}. Throughput: ${throughput}.</p>
${retrievalSection(retrieval)}${chunk}
</body></html>
`;
}

interface Highlight {
  n: number;
  view: string;
  field: string;
  index: number;
  match: Match;
  start: number;
  end: number;
}

/** A chunk's (or section's) views, and its source text with every item's evidence marked. */
function renderChunk(rec: Json): string {
  const text = typeof rec.text === 'string' ? rec.text : typeof rec.raw_text === 'string' ? rec.raw_text : '';
  const ownId = String(rec.chunk_id ?? rec.section_id ?? '');
  // A section's text is its chunks joined by a blank line: a span into one of them is shifted to
  // where that chunk starts (when the pieces and the chunk ids agree, as evidence assumed).
  const chunkStarts = new Map<string, number>();
  if (rec.kind === 'section' && Array.isArray(rec.chunk_ids)) {
    const pieces = text.split('\n\n');
    if (pieces.length === rec.chunk_ids.length) {
      let at = 0;
      pieces.forEach((piece, i) => {
        chunkStarts.set(String((rec.chunk_ids as unknown[])[i]), at);
        at += piece.length + 2;
      });
    }
  }
  const evidence = isObject(rec.evidence) ? rec.evidence : {};
  const highlights: Highlight[] = [];
  const lists: string[] = [];
  let n = 0;
  for (const view of VIEWS) {
    const ev = evidence[view];
    if (!isObject(ev) || !Array.isArray(ev.items)) continue;
    const entries: string[] = [];
    for (const item of ev.items) {
      if (!isObject(item)) continue;
      n++;
      const match = (MATCHES.includes(item.match as Match) ? item.match : 'none') as Match;
      const value = itemValue(rec[view], String(item.field), Number(item.index));
      for (const span of Array.isArray(item.spans) ? item.spans : []) {
        // Spans into this record's own text: the chunk's, or a section's text when its chunks are not told apart.
        if (!isObject(span) || typeof span.start !== 'number' || typeof span.end !== 'number') continue;
        const shift = span.source === 'chunk' && rec.kind === 'section' ? chunkStarts.get(String(span.id)) : undefined;
        const own = span.source === 'section_text' || shift !== undefined || (span.source === 'chunk' && rec.kind !== 'section' && span.id === ownId);
        const start = span.start + (shift ?? 0);
        const end = span.end + (shift ?? 0);
        if (own && start >= 0 && end <= text.length && start < end) highlights.push({ n, view, field: String(item.field), index: Number(item.index), match, start, end });
      }
      const checks = Array.isArray(item.checks) && item.checks.length > 0 ? ` <span class="checks">${item.checks.map((c) => escapeHtml(c)).join(', ')}</span>` : '';
      const score = typeof item.score === 'number' && match === 'partial' ? ` ${item.score}` : '';
      entries.push(`<li value="${n}"><code>${escapeHtml(item.field)}[${escapeHtml(item.index)}]</code> <span class="${match === 'none' ? 'none' : 'muted'}">${match}${score}</span>: ${escapeHtml(value)}${checks}</li>`);
    }
    lists.push(`<h3>${escapeHtml(view)}</h3><ol class="items">${entries.join('')}</ol>`);
  }
  return `<p>Source text, each item's support marked (green exact, blue normalised, yellow partial; hover for the item):</p><div class="source">${markText(text, highlights)}</div>${lists.join('') || '<p class="muted">No evidence on this record.</p>'}`;
}

// Overlapping spans: the text is cut at every span boundary, and each piece is marked with the
// best match among the spans covering it, its title naming them all.
function markText(text: string, highlights: readonly Highlight[]): string {
  const cuts = new Set<number>([0, text.length]);
  for (const h of highlights) cuts.add(h.start).add(h.end);
  const points = [...cuts].sort((a, b) => a - b);
  let out = '';
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const to = points[i + 1]!;
    const piece = escapeHtml(text.slice(from, to));
    const covering = highlights.filter((h) => h.start <= from && h.end >= to);
    if (covering.length === 0) {
      out += piece;
      continue;
    }
    const best = covering.reduce((a, b) => (MATCHES.indexOf(b.match) < MATCHES.indexOf(a.match) ? b : a));
    const title = covering.map((h) => `#${h.n} ${h.view}.${h.field}[${h.index}] ${h.match}`).join('; ');
    out += `<mark class="${best.match}" title="${escapeHtml(title)}">${piece}</mark>`;
  }
  return out;
}

function itemValue(view: unknown, field: string, index: number): string {
  let v: unknown = view;
  for (const part of field.split('.')) v = isObject(v) ? v[part] : undefined;
  if (Array.isArray(v)) return String(v[index] ?? '');
  if (typeof v === 'string') return field === 'summary' ? (splitSentences(v)[index]?.text ?? v) : v;
  return '';
}
