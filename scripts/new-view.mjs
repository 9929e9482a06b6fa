#!/usr/bin/env node
// Scaffolds a new chunk view: npm run new:view NAME (NAME in snake_case, e.g. cause_chain).
// Writes what a view needs, registered, so that the tree builds and the view-generic tests pass
// at once: its zod contract (src/contracts/views.ts, its record kind in src/contracts/index.ts),
// its name in VIEW_TYPES (src/contracts/vocabulary.ts), its kind file (src/views/kinds/<name>.ts:
// prompt task, quality rules, feedback, evidence roles, format bounds, flatten layout) and its
// registry line, the stub of its extractive rules (src/views/extractive.ts), the summaries of
// `rca --help` (src/cli/registry.ts), and the generated JSON Schemas (npm run contracts). The view starts with one list field, `statements`: rename and
// add fields in the contract and the kind together (see ARCHITECTURE.md, "How to add a view").
//
// Usage: node scripts/new-view.mjs NAME [--root DIR]   (DIR: the checkout to write, default this one)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const ROOT = rootAt >= 0 ? args.splice(rootAt, 2)[1] : fileURLToPath(new URL('..', import.meta.url));
const [name] = args;
/** The edited files, by path, written together at the end. */
const pending = new Map();
const NAME_RE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
if (args.length !== 1 || !NAME_RE.test(name)) fail('usage: npm run new:view NAME (snake_case: lower-case letters, digits and single underscores, e.g. cause_chain)');

const vocabulary = read('src/contracts/vocabulary.ts');
const types = /export const VIEW_TYPES = \[([^\]]*)\] as const;/.exec(vocabulary);
if (!types) fail('src/contracts/vocabulary.ts: VIEW_TYPES not found');
const existing = [...types[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
if (existing.includes(name) || name === 'section_summary' || name === 'combined') fail(`a view named ${name} exists already`);

const pascal = name.replace(/(?:^|_)([a-z0-9])/g, (_m, c) => c.toUpperCase());
const camel = pascal[0].toLowerCase() + pascal.slice(1);
const file = name.replace(/_/g, '-');
const kindPath = `src/views/kinds/${file}.ts`;
if (existsSync(join(ROOT, kindPath))) fail(`${kindPath} exists already`);

// 1. The name, among the chunk views (VIEW_NAMES follows: the chunk views, then section_summary).
edit('src/contracts/vocabulary.ts', types[0], `export const VIEW_TYPES = [${[...existing, name].map((v) => `'${v}'`).join(', ')}] as const;`);

// 2. The contract: one list field to start with, the trusted fields and the citations.
edit(
  'src/contracts/views.ts',
  'export const VIEW_SCHEMAS = {',
  `export const ${pascal} = z
  .strictObject({
    ...trusted,
    view_type: z.literal('${name}'),
    statements: strings('what CHUNK_TEXT states, each copied as written'),
    citations: Citations,
  })
  .describe('${name}: a reading of one chunk');
export type ${pascal} = z.infer<typeof ${pascal}>;

export const VIEW_SCHEMAS = {`,
);
edit('src/contracts/views.ts', '} as const satisfies Record<ViewType, z.ZodObject>;', `  ${name}: ${pascal},\n} as const satisfies Record<ViewType, z.ZodObject>;`);
const union = /export type View = ([^;]+);/.exec(read('src/contracts/views.ts'));
edit('src/contracts/views.ts', union[0], `export type View = ${union[1]} | ${pascal};`);

// 3. Its record kind, for rca schema.
const index = read('src/contracts/index.ts');
const viewsImport = /import \{ ([^}]+) \} from '\.\/views\.js';/.exec(index);
edit('src/contracts/index.ts', viewsImport[0], `import { ${[...viewsImport[1].split(', '), pascal].join(', ')} } from './views.js';`);
edit('src/contracts/index.ts', '  section: { schema: SectionRecord,', `  ${name}: { schema: ${pascal}, summary: 'the ${name} view of a chunk' },\n  section: { schema: SectionRecord,`);

// 4. The kind, and its registry line among the chunk views.
const article = /^[aeiou]/.test(name) ? 'an' : 'a';
write(
  kindPath,
  `// ${name}: a reading of one chunk (contract: src/contracts/views.ts).
import type { JsonObject } from '../../contracts/json.js';
import { CITATIONS, ID, list } from './bounds.js';
import type { ChunkViewKind } from './kind.js';

const CONSERVATIVE = 'Be extractive and conservative: record only what CHUNK_TEXT states and leave a list empty rather than guess.';

// Its own quality flags, beyond the shape, grounding and evidence checks every chunk view gets.
function quality(_view: JsonObject): string[] {
  return [];
}

export const ${camel}: ChunkViewKind = {
  name: '${name}',
  reads: 'chunk',
  task: {
    article: '${article}',
    // What each doc type should emphasise; the field names are the view's own keys.
    focus: { SOP: CONSERVATIVE, CR: CONSERVATIVE, WO: CONSERVATIVE, ECA: CONSERVATIVE, OTHER: CONSERVATIVE },
    // What the validator will check, said up front so a first reply can pass.
    rules: 'Your reply is checked: every list holds plain strings; a phrase in double quotes is copied exactly from CHUNK_TEXT.',
  },
  quality,
  // How the retry prompt explains each flag of quality(), by flag.
  feedback: {},
  // The evidence role of each field that is not a claim ('summary', 'entity', 'id', 'free').
  roles: {},
  polarity: [],
  identifiers: [],
  bounds: {
    chunk_id: ID,
    statements: list(8, 200),
    ...CITATIONS,
  },
  flatten: {
    separator: '; ',
    fields: [['STATEMENTS', 'statements']],
  },
  extractive: true,
};
`,
);
const kinds = read('src/views/kinds/index.ts');
edit('src/views/kinds/index.ts', "import { sectionSummary } from './section-summary.js';", `import { sectionSummary } from './section-summary.js';\nimport { ${camel} } from './${file}.js';`);
if (!kinds.includes('  section_summary: sectionSummary,')) fail('src/views/kinds/index.ts: the section_summary line not found');
edit('src/views/kinds/index.ts', '  section_summary: sectionSummary,', `  ${name}: ${camel},\n  section_summary: sectionSummary,`);

// 5. The one-line summaries \`rca --help\` prints without loading the stages (a test holds them to
// the stages' own, which name the views from VIEW_TYPES).
const said = (views) => ({ and: views.join(', ').replace(/, ([^,]+)$/, ' and $1'), list: views.join(', ') });
const [before, after] = [said(existing), said([...existing, name])];
edit('src/cli/registry.ts', `write the ${before.and} views`, `write the ${after.and} views`);
edit('src/cli/registry.ts', `each view (${before.list})`, `each view (${after.list})`);

// 6. The stub of its extractive rules: every list empty, until rules fill them.
edit(
  'src/views/extractive.ts',
  'export const EXTRACTIVE_BUILDERS: Partial<Record<ViewType, (input: ExtractiveInput) => View>> = {',
  `export const EXTRACTIVE_BUILDERS: Partial<Record<ViewType, (input: ExtractiveInput) => View>> = {\n  // ${name}: no rules yet, so every list is empty.\n  ${name}: (input) => emptyView('${name}', input.context),`,
);

// Nothing is written until every edit has found its place.
for (const [path, text] of pending) writeFileSync(join(ROOT, path), text);

// 7. The JSON Schemas the stages load instead of zod.
const derived = spawnSync(process.execPath, [join(ROOT, 'scripts', 'derive-contracts.mjs')], { cwd: ROOT, stdio: 'inherit' });
if (derived.status !== 0) fail('npm run contracts failed');

console.error(`new view ${name}: ${kindPath} (its prompt task, checks and flatten layout), src/contracts/views.ts (its fields), the extractive stub in src/views/extractive.ts.
Next: npm run build && npm test; npm run golden (the goldens now carry ${name}: read the diff); npm run docs.`);

function read(path) {
  return pending.get(path) ?? readFileSync(join(ROOT, path), 'utf8');
}
function write(path, text) {
  pending.set(path, text);
}
function edit(path, anchor, replacement) {
  const text = read(path);
  if (!text.includes(anchor)) fail(`${path}: cannot find ${JSON.stringify(anchor.slice(0, 60))}`);
  write(path, text.replace(anchor, () => replacement));
}
function fail(message) {
  console.error(`new-view: ${message}`);
  process.exit(2);
}
