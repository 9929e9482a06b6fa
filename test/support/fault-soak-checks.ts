// What a fault soak must show, as assertions: nothing lost, duplicated or reordered; every view
// ends as planned; the --stats counts equal the fake server's; the exit status says what happened.
import { expect } from 'vitest';
import { chunk } from '../generation/support/inputs.js';
import { FAULT_KINDS, SERVER_FAULT_NAMES } from './fault-plan.js';
import { expectedTotals, SOAK_VIEWS, viewKey, type SoakResult } from './fault-soak.js';

export function checkSoak(r: SoakResult): void {
  const t = expectedTotals(r.expected);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain('INTERNAL_ERROR');
  expect(r.stderr).not.toContain('fatal');

  // Exit status: transient faults that a retry cured leave 0; a view that failed after all its
  // tries leaves 1, with the view null and its error in the record.
  expect(r.code).toBe(t.failed > 0 ? 1 : 0);

  // Records: every input record once, in input order.
  const lines = r.stdout.split('\n');
  expect(lines.pop()).toBe('');
  const out = lines.map((l) => JSON.parse(l) as Record<string, any>);
  expect(out.map((rec) => rec.chunk_id)).toEqual(Array.from({ length: r.records }, (_, i) => chunk(i).chunk_id));

  // Views: each as planned, down to its attempts and error code.
  const got = out.map((rec) => SOAK_VIEWS.map((view) => viewOutcome(rec, view)));
  const want = r.expected.map((views) => views.map((v) => ({ ok: v.status === 'ok', attempts: v.attempts, code: v.code })));
  expect(mismatches(got, want)).toEqual([]);
  expect(r.stderr.match(/: failed after \d+ attempts?: /g)?.length ?? 0).toBe(t.failed);

  // The run's statistics against the plan and the server's own counts.
  expect(r.stats).toMatchObject({
    exit_status: r.code,
    records: r.records,
    rejected: 0,
    records_not_written: 0,
    views: { ok: t.ok, flagged: 0, failed: t.failed, failed_by_code: t.failedByCode },
    attempts: t.attempts,
    transport_retries: t.transportRetries,
  });
  // The preflight's model load is a chat request too, outside the plan.
  const chatRequests = (r.server.byPath['/api/chat'] ?? 0) - (r.server.loads ?? 0);
  expect(chatRequests).toBe(t.requests);
  expect(r.stats.attempts + r.stats.transport_retries).toBe(chatRequests);
  expect(r.served.requests).toBe(chatRequests);
  for (const kind of FAULT_KINDS) {
    expect({ kind, served: r.served.byKind[kind] }).toEqual({ kind, served: t.faults[kind] });
    const names = SERVER_FAULT_NAMES[kind];
    if (names !== undefined) expect({ kind, server: names.reduce((n, name) => n + (r.server.faults[name] ?? 0), 0) }).toEqual({ kind, server: t.faults[kind] });
  }
  // Requests per view as planned: no view asked once too often or too rarely.
  const perView = r.expected.flatMap((views, i) => views.map((v, k) => [viewKey(i, SOAK_VIEWS[k]!), v.requests] as const));
  expect(perView.filter(([key, n]) => r.served.perView.get(key) !== n)).toEqual([]);
  // Only views that passed are cached.
  expect(r.stats.cache).toMatchObject({ stored: t.ok, hits: 0, error: null });
}

function viewOutcome(rec: Record<string, any>, view: string): { ok: boolean; attempts: number | undefined; code: string | null } {
  const generation = rec.generation?.[view];
  const error = generation?.error ?? null;
  const ok = error === null && rec[view] !== null && typeof rec[view] === 'object' && Array.isArray(rec.flags?.[view]) && rec.flags[view].length === 0;
  // A failed view is null, its error in band with the same attempt count.
  const failedInBand = error !== null && rec[view] === null && error.attempts === generation.attempts;
  return { ok: ok && !failedInBand, attempts: generation?.attempts, code: failedInBand ? error.code : error === null ? null : `malformed: ${JSON.stringify(error)}` };
}

function mismatches<T>(got: T[][], want: T[][]): string[] {
  const out: string[] = [];
  want.forEach((views, i) =>
    views.forEach((w, k) => {
      const g = got[i]?.[k];
      if (JSON.stringify(g) !== JSON.stringify(w)) out.push(`record ${i} ${SOAK_VIEWS[k]}: got ${JSON.stringify(g)}, planned ${JSON.stringify(w)}`);
    }),
  );
  return out.slice(0, 20);
}
