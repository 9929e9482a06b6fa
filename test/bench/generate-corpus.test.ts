import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const generate = (...args: string[]) => {
  const r = spawnSync(process.execPath, [join(ROOT, 'bench/generate-corpus.mjs'), ...args], { maxBuffer: 1 << 28 });
  return { status: r.status, out: r.stdout, err: r.stderr.toString() };
};
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('bench corpus generator', () => {
  it('gives the same bytes for the same seed, other bytes for another seed, per profile', () => {
    for (const profile of ['mdparser', 'text-heavy']) {
      const a = generate('--mb', '0.3', '--seed', '7', '--profile', profile).out;
      expect(sha(generate('--mb', '0.3', '--seed', '7', '--profile', profile).out)).toBe(sha(a));
      expect(sha(generate('--mb', '0.3', '--seed', '8', '--profile', profile).out)).not.toBe(sha(a));
    }
  });

  it('keeps the default profile the mdparser one', () => {
    expect(sha(generate('--mb', '0.2').out)).toBe(sha(generate('--mb', '0.2', '--profile', 'mdparser').out));
  });

  it('text-heavy: ~1.1 KB records whose text is about three quarters of the bytes', () => {
    const out = generate('--mb', '1', '--profile', 'text-heavy').out;
    const lines = out.toString('utf8').split('\n').filter(Boolean);
    const textBytes = lines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(JSON.parse(l).text)), 0);
    const share = textBytes / out.length;
    const perRecord = out.length / lines.length;
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.8);
    expect(perRecord).toBeGreaterThan(950);
    expect(perRecord).toBeLessThan(1250);
    const rec = JSON.parse(lines[0]!);
    expect(Object.keys(rec)).toEqual(['type', 'chunk_id', 'doc_id', 'section_title', 'section_path', 'heading_level', 'text', 'page_start', 'page_end', 'order_index']);
  });

  it('refuses an unknown profile with status 2', () => {
    const r = generate('--profile', 'nope');
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/--profile must be one of mdparser, text-heavy/);
  });
});
