import { describe, expect, it } from 'vitest';
import { locate } from '../../src/views/evidence-match.js';
import { EvidenceText, tokensOf } from '../../src/views/evidence-text.js';
import { feedbackFor } from '../../src/views/feedback.js';
import { nearCopyContradiction } from '../../src/views/near-copy.js';

// An item that copies a sentence of the text with a few tokens changed: flagged when the change
// turns the meaning round, passed when it is a faithful copy or a harmless rewording.
const TEXT = new EvidenceText(
  'The operators observed elevated bearing temperature on the charging pump. Seal injection flow remained above the low flow alarm setpoint. ' +
    'A second verification is required before the breaker is closed. The crew opened the suction valve and started the standby pump. ' +
    'Reactor power was between 98 and 100 percent. Do not operate the pump with the recirculation valve closed.',
);

const check = (item: string): string | null => nearCopyContradiction(tokensOf(item), TEXT, locate(item, TEXT));

describe('near-copy contradictions', () => {
  it.each([
    ['direction', 'The operators observed reduced bearing temperature on the charging pump.'],
    ['comparator', 'Seal injection flow remained below the low flow alarm setpoint.'],
    ['polarity, added', 'A second verification is not required before the breaker is closed.'],
    ['polarity, between', 'Reactor power was not between 98 and 100 percent.'],
    ['state', 'The crew closed the suction valve and started the standby pump.'],
    ['state, reworded', 'the standby pump was stopped by the crew'],
    ['order', 'A second verification is required after the breaker is closed.'],
  ])('%s', (_kind, item) => {
    expect(check(item)).not.toBeNull();
  });

  it.each([
    ['a faithful copy', 'Seal injection flow remained above the low flow alarm setpoint.'],
    ['a harmless rewording', 'The operators saw elevated bearing temperature on the charging pump.'],
    ['a negation the text puts before the copied words', 'the pump must not operate with the recirculation valve closed'],
    ['a shortened copy', 'The crew opened the suction valve.'],
  ])('%s', (_kind, item) => {
    expect(check(item)).toBeNull();
  });

  it('says what to fix in the retry feedback', () => {
    expect(feedbackFor({ flags: ['contradicted_copy:reduced in "The operators observed reduced bearing temperature"'] })).toContain(
      '"The operators observed reduced bearing temperature" copies CHUNK_TEXT with "reduced" turned to its opposite',
    );
  });
});
