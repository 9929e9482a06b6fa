// The real-text questions (test/fixtures/retrieval/realtext.questions.jsonl) keep what their README
// promises: every gold id is a chunk of the real-text set, and a question's split is its document's
// split in the real-text labels, so no test document is ever tuned on through a question.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQuestions } from '../../src/retrieval/questions.js';
import { readRealtextSet } from '../../bench/quality/realtext-set.mjs';
import { ROOT } from '../support/golden.js';

const FILE = join(ROOT, 'test', 'fixtures', 'retrieval', 'realtext.questions.jsonl');
const set = parseQuestions(FILE, readFileSync(FILE, 'utf8'));
const records = readFileSync(FILE, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { id: string; doc_id: string; note?: string });

const docOf = new Map<string, string>();
const splitOf = new Map<string, string>();
const kindOf = new Map<string, string>();
for (const part of readRealtextSet(join(ROOT, 'test', 'fixtures', 'realtext'))) {
  for (const c of part.chunks as { chunk_id: string; doc_id: string }[]) docOf.set(c.chunk_id, c.doc_id);
  for (const l of part.labels as { chunk_id: string; split: string; doc_kind: string }[]) {
    splitOf.set(docOf.get(l.chunk_id)!, l.split);
    kindOf.set(docOf.get(l.chunk_id)!, l.doc_kind);
  }
}

describe('the real-text questions', () => {
  it('parse, and name only chunks of the real-text set', () => {
    expect(set.problems).toEqual([]);
    expect(set.questions.length).toBeGreaterThanOrEqual(40);
    for (const q of set.questions) for (const g of q.gold) expect(docOf.has(g), `${q.id}: ${g}`).toBe(true);
  });

  it('take the split of their first gold chunk’s document, and say so when the gold spans both halves', () => {
    for (const [i, q] of set.questions.entries()) {
      const docs = new Set(q.gold.map((g) => docOf.get(g)!));
      const first = docOf.get(q.gold[0]!)!;
      expect(records[i]!.doc_id, q.id).toBe(first);
      expect(q.split, q.id).toBe(splitOf.get(first));
      const halves = new Set([...docs].map((d) => splitOf.get(d)));
      if (halves.size > 1) expect(records[i]!.note ?? '', q.id).toContain('both halves');
    }
  });

  it('ask about every doc kind in both halves, and put about half of them in test', () => {
    const halves = new Map<string, Set<string>>();
    for (const q of set.questions) {
      const kind = kindOf.get(docOf.get(q.gold[0]!)!)!;
      (halves.get(kind) ?? halves.set(kind, new Set()).get(kind)!).add(q.split);
    }
    expect([...halves.keys()].sort()).toEqual([...new Set(kindOf.values())].sort());
    for (const [, h] of halves) expect([...h].sort()).toEqual(['dev', 'test']);
    const test = set.questions.filter((q) => q.split === 'test').length / set.questions.length;
    expect(test).toBeGreaterThan(0.4);
    expect(test).toBeLessThan(0.6);
  });
});
