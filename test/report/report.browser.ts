// The browser tier (npm run test:report, never npm test): the report page of a build holding a
// hostile chunk, opened in a real headless Chromium (Debian's chromium, driven by playwright-core).
// It loads with no console error (a Content-Security-Policy violation would be one), the chunk's
// <script> and onerror= run nothing, the inline style applies (its hash is right), and a screenshot
// shows a rendered page, not a blank one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture } from './build-fixture.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let context: BrowserContext;
beforeAll(async () => {
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'rca-chromium-')), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 900 } });
}, 60_000);
afterAll(async () => {
  await context?.close();
});

/** Share of non-zero bytes in a PNG's inflated scanlines: a blank page filters to almost all zeros. */
function inkShare(png: Buffer): number {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  let ink = 0;
  for (const byte of raw) if (byte !== 0) ink++;
  return ink / raw.length;
}

describe('rca report in headless Chromium', () => {
  it('loads with no console error, runs nothing from the hostile chunk, and renders', async () => {
    const { report, code } = await buildFixture();
    expect(code).toBe(0);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
    await page.waitForTimeout(300);

    expect(problems).toEqual([]);
    // Only the page itself was loaded: no asset, no image of the hostile <img>.
    expect(requests).toEqual([pathToFileURL(report).href]);
    expect(await page.title()).toMatch(/^rca report: /);
    // Runs in the page: globalThis is its window.
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    // The hostile markup is there, as text.
    expect(await page.locator('.source').textContent()).toContain('<script>document.title="pwned"');
    // The inline style applied: the policy's hash matches it.
    expect(await page.locator('mark.exact').first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor)).toBe('rgb(184, 230, 191)');
    expect(await page.locator('svg').count()).toBe(3);

    const shot = await page.screenshot({ fullPage: true });
    if (process.env.RCA_REPORT_SCREENSHOT) writeFileSync(process.env.RCA_REPORT_SCREENSHOT, shot);
    const blank = await context.newPage();
    await blank.setContent('<!DOCTYPE html><html><body></body></html>');
    const empty = await blank.screenshot();
    // Measured: a blank page about 0.0003, this report about 0.03 (text, tables, three charts).
    expect(inkShare(empty)).toBeLessThan(0.002);
    expect(inkShare(shot)).toBeGreaterThan(0.01);
    expect(shot.length).toBeGreaterThan(5 * empty.length);
  }, 60_000);
});
