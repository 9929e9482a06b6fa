import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkerFor } from '../../src/contracts/checkers.js';
import { SectionRecord } from '../../src/contracts/sections.js';
import type { SectionRecord as TreeRecord } from '../../src/sections/section-tree.js';
import { GOLDEN_DIR } from '../support/golden.js';

// What count-sections writes is a section record by the contract: the type says so at compile time...
const _typeCheck: SectionRecord = {} as TreeRecord;

// ...and every record of its golden outputs says so at run time, to zod and to the zod-free checker.
const casesDir = join(GOLDEN_DIR, 'count-sections');
const records = readdirSync(casesDir).flatMap((name) =>
  readFileSync(join(casesDir, name, 'expected.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => [`${name}:${i + 1}`, JSON.parse(l) as unknown] as const),
);

describe('count-sections output fits the section contract', () => {
  it('there are records to check', () => {
    expect(records.length).toBeGreaterThan(50);
  });

  it.each(records)('%s', (_where, record) => {
    expect(SectionRecord.safeParse(record).success).toBe(true);
    expect(checkerFor('section')(record)).toBeNull();
  });

  it('fields added by later stages pass (the contract is loose)', () => {
    const [, record] = records[0]!;
    expect(checkerFor('section')({ ...(record as object), section_summary: null, embedding_text: {} })).toBeNull();
  });
});
