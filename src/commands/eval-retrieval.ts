// rca eval-retrieval: how often each search finds the chunks that answer labelled questions
// (retrieval/evaluate.ts), per question set, split, mode and indexed text, always next to flat
// BM25 over the raw chunk text.
import { readFileSync } from 'node:fs';
import { commandHelp, parseCommandArgs, type Command, type CommandIO } from './command.js';
import { BASELINE, evaluate, type EvalConfig, type EvalRow } from '../retrieval/evaluate.js';
import { queryIndex } from './query-index.js';
import { parseQuestions, type QuestionSet } from '../retrieval/questions.js';
import { QUERY_OPTIONS, queryVectors } from '../retrieval/query-vectors.js';
import { CHUNK_TEXTS, SEARCH_MODES } from '../retrieval/search.js';
import { EXIT } from '../runtime/exit-codes.js';
import type { OptionsSpec } from '../runtime/stage.js';

const OPTIONS = {
  db: { type: 'string', placeholder: 'FILE', help: 'the index (written by rca index)' },
  questions: { type: 'list', placeholder: 'FILE', help: 'a question file (JSON Lines: id, split, question, gold); each file is reported as its own set' },
  split: { type: 'string', placeholder: 'SPLIT', default: 'all', choices: ['dev', 'test', 'all'], help: 'which questions to run' },
  sections: { type: 'number', placeholder: 'N', default: 5, min: 1, integer: true, help: 'hierarchical: sections the first stage keeps' },
  hybrid: { type: 'boolean', help: 'also run hybrid search: embeds every question with the model of the index\'s vectors (--host or --base-url)' },
  json: { type: 'boolean', help: 'one JSON object per row instead of the table' },
  ...QUERY_OPTIONS,
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionsSpec;

const USAGE = commandHelp(
  `Usage: rca eval-retrieval --db FILE --questions FILE [--questions FILE...] [--split dev|test|all] [--json]

Runs every labelled question of each --questions file through each search of rca search and
scores the hits against the question's gold chunk ids (binary relevance):
  R@1 R@5 R@10  recall@k: the share of questions with a gold chunk in the top k
  MRR           mean of 1/rank of the first gold chunk in the top 10 (0 when none)
  nDCG@10       DCG of the top 10 over the DCG of the gold chunks ranked first
  stage-1 miss  hierarchical: the share of questions whose gold chunks lie in none of the
                sections the first stage kept (the second stage could not find them)
for each mode (flat, hierarchical; hybrid with --hybrid) and each indexed chunk text (text: the
raw chunk text; views: the views' embedding text; text+views), per set (the file's name), kind
(written questions; synthetic ones apart) and split. The first row of each group is flat BM25
over the raw text, the baseline; "vs base" is each row's MRR minus the baseline's. The numbers
hold for the index's texts and, for hybrid, for the model that made its vectors: the header
names it.`,
  OPTIONS,
  `
Question file (test/fixtures/retrieval/README.md):
  {"id": "q1", "split": "dev", "question": "...", "gold": ["chunk:doc:sec3", ...]}

Examples:
  rca eval-retrieval --db out/sample.index.sqlite --questions test/fixtures/retrieval/sample.questions.jsonl
  rca eval-retrieval --db index.sqlite --questions a.questions.jsonl --questions b.questions.jsonl --split test --json

Exit status:
  0    every question was run
  1    some question lines were refused (each named on stderr); the others were run
  2    usage error
  3    the index cannot be read, or a question cannot be embedded (--hybrid)
`,
);

const command: Command = {
  name: 'eval-retrieval',
  summary: 'measure recall@k, MRR and nDCG@10 of each search mode and indexed text on labelled questions, next to flat BM25 over the raw text (rca eval-retrieval --help)',
  async run(io: CommandIO): Promise<number> {
    const say = (line: string) => io.stderr.write(`rca eval-retrieval: ${line}\n`);
    let parsed;
    try {
      parsed = parseCommandArgs(OPTIONS, io.argv, false);
    } catch (err) {
      say(`${(err as Error).message} (see rca eval-retrieval --help)`);
      return EXIT.USAGE;
    }
    const { values } = parsed;
    if (values.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    if (values.db === undefined || values.questions.length === 0) {
      say('--db FILE and at least one --questions FILE are needed (see rca eval-retrieval --help)');
      return EXIT.USAGE;
    }
    const sets: QuestionSet[] = [];
    for (const path of values.questions) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        say(`cannot read --questions file '${path}': ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        return EXIT.USAGE;
      }
      const set = parseQuestions(path, text);
      if (values.split !== 'all') set.questions = set.questions.filter((q) => q.split === values.split);
      sets.push(set);
    }
    const problems = sets.flatMap((s) => s.problems);
    for (const p of problems) say(p);
    return queryIndex(values.db, say, async (store) => {
      const info = store.embeddingOf('chunk');
      const modes = SEARCH_MODES.filter((m) => (m === 'hierarchical' ? store.hasSections() : m === 'hybrid' ? values.hybrid === true : true));
      if (!store.hasSections()) say('the index holds no sections: hierarchical search is not measured');
      if (values.hybrid === true && info === null) {
        say('--hybrid: the index holds no chunk vectors (embed the chunks with rca-embed, then index them)');
        return EXIT.USAGE;
      }
      if (values.hybrid !== true && info !== null) say(`the index holds vectors of ${info.model}: --hybrid measures hybrid search with them`);
      const configs: EvalConfig[] = [BASELINE, ...modes.flatMap((mode) => CHUNK_TEXTS.map((text) => ({ mode, text }))).filter((c) => c.mode !== BASELINE.mode || c.text !== BASELINE.text)];
      let vectors: Map<string, number[]> | undefined;
      if (values.hybrid === true && info !== null) {
        const questions = sets.flatMap((s) => s.questions);
        const embedded = await queryVectors(info, questions.map((q) => q.question), values, io.env);
        vectors = new Map(questions.map((q, i) => [q.id, embedded[i]!]));
      }
      const rows = evaluate(store, sets, configs, { sections: values.sections, ...(vectors ? { vectors } : {}) });
      const vectorNote = values.hybrid === true && info !== null ? `vectors: ${info.model}${info.digest ? ` (${info.digest.slice(0, 12)})` : ''}, ${info.dims} dims, ${info.field}` : 'vectors: none (keyword search)';
      io.stdout.write(values.json ? rows.map((r) => `${JSON.stringify(rowJson(r, vectorNote))}\n`).join('') : table(rows, vectorNote));
      return problems.length > 0 ? EXIT.RECORDS_FAILED : EXIT.OK;
    });
  },
};

const r3 = (n: number): number => Math.round(n * 1000) / 1000;

function rowJson(r: EvalRow, vectors: string): Record<string, unknown> {
  return {
    set: r.set,
    kind: r.kind,
    split: r.split,
    mode: r.mode,
    text: r.text,
    questions: r.questions,
    recall_at_1: r3(r.recall[1]),
    recall_at_5: r3(r.recall[5]),
    recall_at_10: r3(r.recall[10]),
    mrr: r3(r.mrr),
    ndcg_at_10: r3(r.ndcg),
    stage1_miss: r.stageMiss === null ? null : r3(r.stageMiss),
    gold_not_indexed: r.goldMissing,
    baseline: r.baseline,
    vectors,
  };
}

/** The rows as aligned tables, one per set, kind and split, with the baseline first. */
export function table(rows: readonly EvalRow[], vectors: string): string {
  const out: string[] = [];
  const groups = new Map<string, EvalRow[]>();
  for (const r of rows) {
    const key = `${r.set}\u0000${r.kind}\u0000${r.split}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const f = (n: number) => n.toFixed(3);
  for (const group of groups.values()) {
    const first = group[0]!;
    const base = group.find((r) => r.baseline);
    out.push(`${first.set}, ${first.kind} questions, ${first.split} (${first.questions}); ${vectors}${first.goldMissing > 0 ? `; ${first.goldMissing} with no gold chunk in the index` : ''}`);
    const header = ['mode', 'text', 'R@1', 'R@5', 'R@10', 'MRR', 'nDCG@10', 'vs base', 'stage-1 miss'];
    const cells = group.map((r) => [
      r.mode,
      r.text,
      f(r.recall[1]),
      f(r.recall[5]),
      f(r.recall[10]),
      f(r.mrr),
      f(r.ndcg),
      r.baseline ? 'baseline' : base === undefined ? '' : `${r.mrr - base.mrr >= 0 ? '+' : ''}${f(r.mrr - base.mrr)}`,
      r.stageMiss === null ? '' : f(r.stageMiss),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    const line = (c: string[]) => c.map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ').trimEnd();
    out.push(line(header), ...cells.map(line), '');
  }
  return out.join('\n');
}

export default command;
