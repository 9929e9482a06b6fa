#!/usr/bin/env node
// The pages of docs/ embed the --help of the stage or command they describe, between
//   <!-- help: rca-tag -->   (or <!-- help: rca cache -->, <!-- help: rca -->)
//   <!-- /help -->
// so that the page cannot drift from the bin: `npm run docs` rewrites every block from the built
// bins, and `node scripts/docs-help.mjs --check` (and the docs test in `npm test`) fails when a
// block differs. It runs the bins as a user would, so it holds whatever code prints the help.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOCS_DIR = join(ROOT, 'docs');

const BLOCK = /<!-- help: ([a-z][a-z -]*?) -->\n([\s\S]*?)<!-- \/help -->/g;

/** Every Markdown file under docs/, sorted, as paths relative to the repository root. */
export function docPages() {
  const pages = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(relative(ROOT, path));
    }
  };
  walk(DOCS_DIR);
  return pages;
}

/** The help blocks of a page: the command each names and the text it holds now. */
export function helpBlocks(text) {
  return [...text.matchAll(BLOCK)].map((m) => ({ command: m[1], body: m[2] }));
}

/** `rca-tag` → bin/rca-tag --help; `rca cache` → bin/rca cache --help. */
export function helpOf(command) {
  const [bin, ...args] = command.split(' ');
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', bin), ...args, '--help'], {
    cwd: ROOT,
    // Defaults shown in the help are written as the variables they come from, never their
    // values here; a bare environment keeps it so whoever runs this.
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  if (r.status !== 0 || r.stdout === '') {
    throw new Error(`${command} --help exited ${r.status} with ${r.stdout === '' ? 'nothing on stdout' : 'output'}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}

/** What a block holds for this help text: a fenced block, so Markdown shows it as printed. */
export function blockBody(help) {
  return `\n\`\`\`text\n${help.endsWith('\n') ? help : `${help}\n`}\`\`\`\n\n`;
}

/** The page with every help block rewritten from the bins (helps: a cache shared across pages). */
export function renderPage(text, helps = new Map()) {
  return text.replace(BLOCK, (_all, command) => {
    if (!helps.has(command)) helps.set(command, helpOf(command));
    return `<!-- help: ${command} -->\n${blockBody(helps.get(command))}<!-- /help -->`;
  });
}

/** The stages (from bin/rca-*) and the rca commands (from `rca --help`), each with its page. */
export function expectedPages() {
  const stages = readdirSync(join(ROOT, 'bin'))
    .filter((f) => f.startsWith('rca-'))
    .map((f) => f.slice('rca-'.length))
    .sort();
  // The "Commands:" section of `rca --help`: one indented name per line, up to a blank line.
  const usage = helpOf('rca');
  const section = usage.slice(usage.search(/^Commands:/m));
  const commands = [];
  for (const line of section.split('\n').slice(1)) {
    const m = /^\s+([a-z][a-z-]*)\s/.exec(line);
    if (!m) break;
    commands.push(m[1]);
  }
  return [
    ...stages.map((stage) => ({ page: `docs/stages/${stage}.md`, command: `rca-${stage}` })),
    ...commands.sort().map((command) => ({ page: `docs/commands/${command}.md`, command: `rca ${command}` })),
  ];
}

function main(argv) {
  const check = argv.includes('--check');
  const helps = new Map();
  const stale = [];
  for (const page of docPages()) {
    const path = join(ROOT, page);
    const text = readFileSync(path, 'utf8');
    const rendered = renderPage(text, helps);
    if (rendered === text) continue;
    if (check) stale.push(page);
    else {
      writeFileSync(path, rendered);
      console.log(`docs-help: rewrote ${page}`);
    }
  }
  const missing = [];
  for (const { page, command } of expectedPages()) {
    let text = '';
    try {
      text = readFileSync(join(ROOT, page), 'utf8');
    } catch {
      missing.push(`${page} (no such page)`);
      continue;
    }
    if (!helpBlocks(text).some((b) => b.command === command)) missing.push(`${page} (no <!-- help: ${command} --> block)`);
  }
  for (const page of stale) console.error(`docs-help: ${page}: a help block differs from the bin's --help; run: npm run docs`);
  for (const m of missing) console.error(`docs-help: missing: ${m}`);
  return stale.length > 0 || missing.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    console.error(`docs-help: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
