import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageNames } from '../../src/cli/registry.js';
import { ROOT, runBin } from '../support/golden.js';

const SAMPLE = join(ROOT, 'test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const stages = stageNames();
const tmp = mkdtempSync(join(tmpdir(), 'rca-bins-'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

function sh(script: string) {
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bins', () => {
  it.each(stages)('stage %s has bin/rca-<stage> listed in package.json and answers --help', (stage) => {
    expect(pkg.bin[`rca-${stage}`]).toBe(`bin/rca-${stage}`);
    const r = runBin(stage, ['--help'], '');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: rca-${stage}`);
    expect(r.stdout).toContain('Exit status:');
  });

  it('every rca-<name> bin in package.json is a registered stage', () => {
    const bins = Object.keys(pkg.bin).filter((name) => name.startsWith('rca-')).map((name) => name.slice('rca-'.length));
    expect(bins.sort()).toEqual(stages);
  });

  it('rca --help lists every stage; rca <stage> dispatches', () => {
    const help = sh('./bin/rca --help');
    expect(help.code).toBe(0);
    for (const stage of stages) expect(help.stdout).toMatch(new RegExp(`^  ${stage} `, 'm'));
    const viaDispatcher = sh(`./bin/rca tag < ${SAMPLE}`);
    const direct = sh(`./bin/rca-tag < ${SAMPLE}`);
    expect(viaDispatcher.code).toBe(0);
    expect(viaDispatcher.stdout).toBe(direct.stdout);
  });

  it('bare rca prints the usage on stderr and exits 2; rca --help prints it on stdout', () => {
    const bare = sh('./bin/rca');
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(sh('./bin/rca --help').stdout);
    expect(bare.stderr).toMatch(/^rca — /);
  });

  it('rca with an unknown command is a usage error', () => {
    const r = sh('./bin/rca frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("rca: unknown command 'frobnicate' (see rca --help)\n");
  });

  it('exits 0 quietly when the reader goes away (| head -1)', () => {
    const big = join(tmp, 'big.jsonl');
    writeFileSync(big, readFileSync(SAMPLE, 'utf8').repeat(400));
    const r = sh(`./bin/rca-tag < ${big} | head -1`);
    expect(r.code).toBe(0);
    // No error: only the run summary.
    expect(r.stderr).toMatch(/^rca-tag: \d+ chunks tagged, none flagged\n$/);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('reads file arguments and "-" for stdin, numbering lines per source', () => {
    const r = sh(`printf 'oops\\n' | ./bin/rca-tag ${SAMPLE} - --rejects /dev/stdout > /dev/null`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rca-tag: stdin:1: BAD_JSON:');
    expect(r.stderr).toContain('rca-tag: 1 of 10 records rejected');
  });

  it('writes rejects as JSON records with --rejects', () => {
    const rejects = join(tmp, 'rejects.jsonl');
    const r = sh(`printf '{"chunk_id":"a","text":"x"}\\n[1]\\n' | ./bin/rca-tag --rejects ${rejects} > /dev/null`);
    expect(r.code).toBe(1);
    expect(JSON.parse(readFileSync(rejects, 'utf8'))).toEqual({ stage: 'tag', source: 'stdin', line: 2, code: 'NOT_OBJECT', message: 'expected a JSON object, got an array', input: '[1]' });
  });

  it('exits 130 on SIGINT and keeps the records already written', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(ROOT, 'bin/rca-tag')], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdin.write(readFileSync(SAMPLE, 'utf8'));
    // Input stays open: the process is waiting for more when the signal arrives.
    for (let i = 0; i < 200 && out.split('\n').filter(Boolean).length < 9; i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(out.split('\n').filter(Boolean)).toHaveLength(9);
    expect(err).toBe('rca-tag: 9 chunks tagged, none flagged\nrca-tag: interrupted after reading 9 records; 9 records written\n');
  });

  // Start-up time itself is measured against a bare node by bench/startup.mjs; what keeps it
  // short is asserted here as counts: rca-tag loads its own modules and no dependency. bin/rca-tag
  // runs them from one bundled file (test/cli/bin-loader.test.ts), whose module list is read here;
  // the ES modules of dist/ (a build without the bundle) are followed as they load.
  it('starts without loading any package dependency or the model, cache and view code', () => {
    const bundled = [...readFileSync(join(ROOT, 'dist/bin/rca-tag.cjs'), 'utf8').matchAll(/^\/\/ (\S+)$/gm)].map((m) => `/${m[1]}`);
    const log = join(tmp, 'modules.txt');
    const entry = join(tmp, 'rca-tag-modules.mjs');
    writeFileSync(entry, `import(${JSON.stringify(join(ROOT, 'dist/cli/main.js'))}).then((m) => m.runStageBin('tag'));\n`);
    const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test/support/module-log.mjs'), entry], {
      cwd: ROOT,
      input: '',
      env: { ...process.env, RCA_MODULE_LOG: log },
    });
    expect(r.status).toBe(0);
    const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].map((url) => url.slice(url.indexOf('/', 'file://'.length)));
    for (const modules of [bundled, loaded]) {
      expect(modules.some((path) => path.endsWith('/dist/transforms/tag.js'))).toBe(true);
      expect(modules.filter((path) => path.includes('/node_modules/'))).toEqual([]);
      expect(modules.filter((path) => /\/dist\/(llm|generation|cache|commands|views)\//.test(path))).toEqual([]);
    }
  });
});
