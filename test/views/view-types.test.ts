import { describe, expect, it } from 'vitest';
import { ViewListError } from '../../src/views/view-types.js';
import { parseViewFields, parseViewList } from '../../src/views/view-types.js';
import { VIEW_TYPES } from '../../src/contracts/vocabulary.js';

// The messages name the registered views; one more positional field than there are views is too many.
const VIEWS = VIEW_TYPES.join(', ');
const TOO_MANY = Array.from({ length: VIEW_TYPES.length + 1 }, (_, k) => String.fromCharCode(0x61 + k)).join(',');

describe('parseViewList (--views)', () => {
  it.each<[string[], string[]]>([
    [['retrieval_summary', 'rca_frame'], ['retrieval_summary', 'rca_frame']],
    [['rca_frame,retrieval_summary'], ['retrieval_summary', 'rca_frame']],
    [['rca_frame', 'rca_frame'], ['rca_frame']],
    [[' rca_frame , '], ['rca_frame']],
  ])('%j → %j', (values, views) => {
    expect(parseViewList(values)).toEqual(views);
  });

  it.each<[string[], string]>([
    [['summary'], `--views must name views among ${VIEWS}; got 'summary'`],
    [[','], '--views names no view'],
  ])('%j is a usage error', (values, message) => {
    expect(() => parseViewList(values)).toThrow(new ViewListError(message));
  });
});

describe('parseViewFields (--from-fields)', () => {
  it.each<[string[], Record<string, string>]>([
    [[], Object.fromEntries(VIEW_TYPES.map((view) => [view, view]))],
    [['retrieval_summary_json,rca_frame_json'], { retrieval_summary: 'retrieval_summary_json', rca_frame: 'rca_frame_json' }],
    [['rs'], { retrieval_summary: 'rs' }],
    [['rca_frame=frame'], { rca_frame: 'frame' }],
    [['rca_frame=frame', 'retrieval_summary=summary'], { rca_frame: 'frame', retrieval_summary: 'summary' }],
  ])('%j → %j', (values, fields) => {
    expect(parseViewFields(values)).toEqual(fields);
  });

  it.each<[string[], string]>([
    [[TOO_MANY], `--from-fields takes at most ${VIEW_TYPES.length} positional fields (${VIEWS})`],
    [['frame=x'], `--from-fields: unknown view 'frame' (views: ${VIEWS})`],
    [['rca_frame='], '--from-fields: empty field name for rca_frame'],
    [['rca_frame=a', 'rca_frame=b'], '--from-fields: rca_frame is given twice'],
  ])('%j is a usage error', (values, message) => {
    expect(() => parseViewFields(values)).toThrow(new ViewListError(message));
  });
});
