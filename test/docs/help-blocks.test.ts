// The pages of docs/ repeat each bin's --help in a generated block (scripts/docs-help.mjs): every
// block must be what the bin prints today, and every stage and rca command must have its page.
// When a test here fails after a change to a --help text, run `npm run docs` and review the diff.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockBody, docPages, expectedPages, helpBlocks, helpOf, ROOT } from '../../scripts/docs-help.mjs';

const blocks = docPages().flatMap((page) => helpBlocks(readFileSync(join(ROOT, page), 'utf8')).map((b) => ({ page, ...b })));

describe('docs/: the --help blocks', () => {
  it('there are blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it.each(blocks.map((b) => [`${b.page}: ${b.command}`, b] as const))('%s is the current --help (npm run docs rewrites it)', (_name, b) => {
    expect(b.body).toBe(blockBody(helpOf(b.command)));
  });
});

describe('docs/: a page for every stage and rca command', () => {
  const expected = expectedPages();

  it('the list holds the seven stages and the rca commands', () => {
    const commands = expected.map((e) => e.command);
    for (const stage of ['tag', 'prompt', 'generate', 'validate', 'flatten', 'count-sections', 'summarize']) expect(commands).toContain(`rca-${stage}`);
    for (const command of ['schema', 'cache', 'merge']) expect(commands).toContain(`rca ${command}`);
  });

  it.each(expected.map((e) => [e.page, e] as const))('%s exists and embeds its --help', (_page, e) => {
    expect(existsSync(join(ROOT, e.page))).toBe(true);
    expect(blocks.filter((b) => b.page === e.page).map((b) => b.command)).toContain(e.command);
  });

  it('docs/index.md links every page of docs/', () => {
    const index = readFileSync(join(ROOT, 'docs/index.md'), 'utf8');
    for (const page of docPages().filter((p) => p !== 'docs/index.md')) expect(index, page).toContain(`](${page.slice('docs/'.length)})`);
  });
});

describe('docs/: relative links lead to files', () => {
  const pages = ['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md', 'QUALITY.md', ...docPages()];
  const links = pages.flatMap((page) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .map((target) => [`${page} → ${target}`, join(ROOT, page, '..', target)] as const),
  );

  it.each(links)('%s', (_name, path) => {
    expect(existsSync(path)).toBe(true);
  });
});
