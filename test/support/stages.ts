import { defineStage, type JsonObject } from '../../src/runtime/stage.js';

/** Adds `seen: <line>` to each record: shows the runner's plumbing without any transform logic. */
export const echoStage = defineStage({
  name: 'echo',
  summary: 'test stage',
  examples: [],
  options: {
    fail: { type: 'list', help: 'mark records whose id is listed as failed' },
    count: { type: 'number', default: 1, min: 1, integer: true, help: 'copies' },
  },
  create(options) {
    return {
      process(record: JsonObject, meta) {
        const failed = options.fail.includes(String(record.id));
        const copies = Array.from({ length: options.count }, () => ({ ...record, seen: meta.line }));
        return { records: copies, failed, warnings: failed ? [`record ${String(record.id)} failed`] : [] };
      },
    };
  },
});

/** Resolves each record after `delay` ms (a random-ish per-record latency), to test ordering. */
export function delayStage(delays: (record: JsonObject) => number, window = 8) {
  let inFlight = 0;
  let maxInFlight = 0;
  const stage = defineStage({
    name: 'delay',
    summary: 'test stage',
    examples: [],
    options: {},
    create() {
      return {
        window,
        async process(record: JsonObject) {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, delays(record)));
          inFlight--;
          return { records: [record] };
        },
      };
    },
  });
  return { stage, stats: () => ({ maxInFlight }) };
}
