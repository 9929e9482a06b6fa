// rca-validate and rca-flatten warn the same way when --from-fields names a field no record has.
import { describe, expect, it } from 'vitest';
import flatten from '../../src/transforms/flatten.js';
import validate from '../../src/transforms/validate.js';
import { runInProcess } from '../support/run-in-process.js';

const record = (views: Record<string, unknown>) => JSON.stringify({ chunk_id: 'c1', section_path: 'A > B', text: 'Pump P-101A tripped.', ...views });
const input = [record({ rs_json: { scope: 'pump trip' }, frame_json: { observed: ['trip'] } }), record({ frame_json: null })].join('\n') + '\n';

describe('--from-fields naming a field no record has', () => {
  it.each([
    [['--from-fields', 'rs_jsn,frame_json'], ['no retrieval_summary view found: no record has field rs_jsn (see --from-fields)']],
    [['--from-fields', 'rs_json,frame_jsn'], ['no rca_frame view found: no record has field frame_jsn (see --from-fields)']],
    [['--from-fields', 'a,b'], ['no views found in fields a, b (see --from-fields)']],
    [['--from-fields', 'rca_frame=frame_jsn'], ['no views found in fields frame_jsn (see --from-fields)']],
    [['--from-fields', 'rs_json,frame_json'], []],
  ])('%j: rca-flatten warns as rca-validate does', async (argv, warnings) => {
    const flat = await runInProcess(flatten, [input], argv);
    const checked = await runInProcess(validate, [input], [...argv, '--flags-ok']);
    const expected = warnings.map((w) => `rca-flatten: ${w}\n`).join('');
    expect(flat.stderr).toBe(expected);
    expect(flat.code).toBe(0);
    // rca-validate also counts the views it flagged; its --from-fields warnings are the same.
    const fieldWarnings = checked.stderr.split('\n').filter((l) => l.includes('(see --from-fields)')).map((l) => `${l}\n`).join('');
    expect(fieldWarnings).toBe(expected.replaceAll('rca-flatten', 'rca-validate'));
    expect(flat.stdout.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('stays quiet with the default fields when only some views were generated', async () => {
    const only = record({ retrieval_summary: { scope: 'pump trip' } }) + '\n';
    expect((await runInProcess(flatten, [only])).stderr).toBe('');
  });
});
