// rca search: one question against an index (retrieval/search.ts), its hits on stdout: a short
// block per hit saying what matched and which section led to it, or with --json one object a line.
import { commandHelp, parseCommandArgs, type Command, type CommandIO } from './command.js';
import { queryIndex } from './query-index.js';
import { QUERY_OPTIONS, queryVectors } from '../retrieval/query-vectors.js';
import { CHUNK_TEXTS, search, SEARCH_MODES, SearchError, type ChunkText, type Hit, type SearchMode, type SearchResult } from '../retrieval/search.js';
import { EXIT } from '../runtime/exit-codes.js';
import type { OptionsSpec } from '../runtime/stage.js';

export const DEFAULT_MODE: SearchMode = 'hierarchical';
export const DEFAULT_TEXT: ChunkText = 'text';

const OPTIONS = {
  db: { type: 'string', placeholder: 'FILE', help: 'the index (written by rca index)' },
  mode: { type: 'string', placeholder: 'MODE', default: DEFAULT_MODE, choices: SEARCH_MODES, help: 'flat: BM25 over the chunks; hierarchical: sections first, then their chunks; hybrid: BM25 and vector ranks fused (needs vectors)' },
  text: { type: 'string', placeholder: 'TEXT', default: DEFAULT_TEXT, choices: CHUNK_TEXTS, help: "which chunk text the keyword search reads: the raw text, the views' embedding text, or both" },
  k: { type: 'number', short: 'k', placeholder: 'N', default: 10, min: 1, integer: true, help: 'hits to show' },
  sections: { type: 'number', placeholder: 'N', default: 5, min: 1, integer: true, help: 'hierarchical: sections the first stage keeps' },
  'doc-type': { type: 'string', placeholder: 'TYPE', help: 'only chunks of this doc type (SOP, CR, WO, ECA, OTHER)' },
  role: { type: 'string', placeholder: 'ROLE', help: 'only chunks of this section role (e.g. steps, corrective_actions)' },
  authority: { type: 'string', placeholder: 'LEVEL', help: 'only chunks of this authority level (mandatory, informational, guidance)' },
  doc: { type: 'string', placeholder: 'DOC_ID', help: 'only chunks (and sections) of this document' },
  json: { type: 'boolean', help: 'one JSON object per hit: rank, score, chunk_id, section_id, doc_id and why it was returned' },
  ...QUERY_OPTIONS,
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;

const USAGE = commandHelp(
  `Usage: rca search --db FILE [--mode flat|hierarchical|hybrid] [--text TEXT] [-k N] [--json] QUESTION...

Searches an index written by rca index for a question in plain words (the words are searched,
less function words; nothing in it is read as query syntax) and prints the top hits, each with
why it was returned: the words that matched in each field searched, and in hierarchical mode the
section (its rank, score and matched words) whose subtree holds the chunk.
  flat          BM25 over the chunks' --text
  hierarchical  BM25 over the sections (path, summary and concepts), then the chunks of the top
                --sections sections and their subsections, found by section id, each scored by
                its section's BM25 plus its own (each over the best of its list)
  hybrid        the BM25 ranking and the vector ranking of the chunks (their first 100 each)
                fused by reciprocal rank (1/(60 + rank)); the question is embedded with the
                model of the index's vectors, through --host or --base-url
Keyword search needs no model and no vectors. --doc-type, --role, --authority and --doc keep
only the chunks that match (hierarchical: --doc also limits the sections).`,
  OPTIONS,
  `
Examples:
  rca search --db out/sample.index.sqlite "what did the operator do after the vibration alarm"
  rca search --db out/sample.index.sqlite --mode flat --text text --doc-type SOP -k 3 "discharge pressure limits"
  rca search --db index.sqlite --mode hybrid --host http://gpu1:11434 --query-prefix "search_query: " --json "..."

Exit status:
  0    the search ran (it may have found nothing)
  2    usage error, or a mode the index cannot serve (hierarchical without sections, hybrid without vectors)
  3    the index cannot be read, or the question cannot be embedded
`,
);

const command: Command = {
  name: 'search',
  summary: 'search an index for a question: flat, hierarchical (sections first) or hybrid (keyword and vector ranks fused) (rca search --help)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca search: ${line}\n`);
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, io.argv, true);
    } catch (err) {
      say(`${(err as Error).message} (see rca search --help)`);
      return EXIT.USAGE;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    if (values.db === undefined) {
      say('--db FILE names the index to search (see rca search --help)');
      return EXIT.USAGE;
    }
    const question = positionals.join(' ').trim();
    if (question === '') {
      say('what to search for? give the question after the options');
      return EXIT.USAGE;
    }
    return queryIndex(values.db, say, async (store) => {
      const mode = values.mode as SearchMode;
      let queryVector: number[] | null = null;
      if (mode === 'hybrid') {
        const info = store.embeddingOf('chunk');
        if (info === null) throw new SearchError('the index holds no chunk vectors: hybrid search needs chunks embedded with rca-embed (flat and hierarchical search need none)');
        queryVector = (await queryVectors(info, [question], values, io.env))[0]!;
      }
      const result = search(store, question, {
        mode,
        text: values.text as ChunkText,
        k: values.k,
        sections: values.sections,
        filters: { docType: values['doc-type'], sectionRole: values.role, authority: values.authority, docId: values.doc },
        queryVector,
        explain: true,
      });
      io.stdout.write(values.json ? result.hits.map((h) => `${JSON.stringify(hitJson(h))}\n`).join('') : describe(result, mode));
      if (result.terms.length === 0) say('the question holds no word to search for (only function words)');
      return EXIT.OK;
    });
  },
};

/** Scores are rounded for print: a BM25 score's last digits differ between builds of SQLite's maths. */
const round = (n: number): number => Number(n.toPrecision(6));

export function hitJson(h: Hit): Record<string, unknown> {
  return {
    rank: h.rank,
    score: round(h.score),
    chunk_id: h.chunkId,
    section_id: h.sectionId,
    doc_id: h.docId,
    doc_type: h.docType,
    section_role: h.sectionRole,
    section_path: h.sectionPath,
    matched: h.matched,
    ...(h.via === null ? {} : { via: { section_id: h.via.sectionId, section_rank: h.via.rank, section_score: round(h.via.score), section_path: h.via.sectionPath, matched: h.via.matched } }),
    ...(h.keyword === undefined ? {} : { keyword: h.keyword === null ? null : { rank: h.keyword.rank, score: round(h.keyword.score) } }),
    ...(h.vector === undefined ? {} : { vector: h.vector === null ? null : { rank: h.vector.rank, distance: round(h.vector.distance) } }),
  };
}

function matchedText(matched: Record<string, string[]>): string {
  const parts = Object.entries(matched).map(([field, words]) => `${field}: ${words.join(', ')}`);
  return parts.length === 0 ? 'no word of the question' : parts.join('; ');
}

function describe(result: SearchResult, mode: SearchMode): string {
  if (result.hits.length === 0) return `no hits for: ${result.terms.join(', ') || '(no words)'}\n`;
  const lines: string[] = [];
  for (const h of result.hits) {
    const kind = [h.docType, h.sectionRole].filter((s) => s !== '').join(' ');
    lines.push(`${String(h.rank).padStart(2)}. ${h.chunkId}  (${h.docId}${kind ? `, ${kind}` : ''})  score ${round(h.score)}`);
    if (h.sectionPath !== '') lines.push(`    ${h.sectionPath}`);
    if (mode === 'hybrid') {
      const k = h.keyword ? `keyword rank ${h.keyword.rank}` : 'no keyword match in the first 100';
      const v = h.vector ? `vector rank ${h.vector.rank} (cosine distance ${round(h.vector.distance)})` : 'not among the 100 nearest vectors';
      lines.push(`    ${k}; ${v}`);
    }
    lines.push(`    matched ${matchedText(h.matched)}`);
    if (h.via !== null) lines.push(`    via section ${h.via.sectionId} (section rank ${h.via.rank}, matched ${matchedText(h.via.matched)})`);
  }
  return `${lines.join('\n')}\n`;
}

export default command;
