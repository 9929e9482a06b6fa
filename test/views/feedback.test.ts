import { describe, expect, it } from 'vitest';
import { feedbackFor } from '../../src/views/feedback.js';

describe('feedbackFor: the retry note names exactly what failed', () => {
  it('a parse error', () => {
    expect(feedbackFor({ parseError: 'reply is JSON an array, not an object' })).toBe(
      'Your previous reply could not be used: reply is JSON an array, not an object. Reply with one JSON object shaped exactly like OUTPUT JSON, and nothing else.',
    );
  });

  it.each<[string, string]>([
    ['missing_hypotheses', 'key "hypotheses" is missing'],
    ['bad_view_type', 'view_type must be exactly as in OUTPUT JSON'],
    ['keywords_synonyms_not_list', 'keywords_synonyms must be a list of strings'],
    ['entities_systems_missing_or_not_list', 'entities_systems must be a list of strings'],
    ['scope_not_str', 'scope must be a string'],
    ['citations_page_start_wrong_type', 'citations_page_start has the wrong type'],
    ['citations_doc_id_missing', 'citations_doc_id is missing'],
    ['observed_item_stringified', 'observed holds lists or objects written as strings; write each item as plain text'],
    ['observed_item_duplicate', 'observed repeats an item; list each item once'],
    ['unexpected_key_confidence', 'remove key "confidence", which is not in OUTPUT JSON'],
    ['scope_too_short', 'scope must say what the chunk covers in at least 15 characters'],
    ['few_keywords', 'keywords_synonyms needs at least 3 distinct terms'],
    ['empty_frame', 'every list is empty; put at least one fact stated in CHUNK_TEXT in observed'],
    ['ungrounded_number:6.5', 'the number 6.5 does not occur in CHUNK_TEXT'],
    ['ungrounded_equipment_id:P-101B', 'the equipment id P-101B does not occur in CHUNK_TEXT'],
    ['ungrounded_quote:failed to start', 'the quoted phrase "failed to start" does not occur in CHUNK_TEXT'],
  ])('%s → %s', (flag, reason) => {
    expect(feedbackFor({ flags: [flag] })).toBe(
      `Your previous reply failed these checks: ${reason}. Reply with the whole corrected JSON object, shaped exactly like OUTPUT JSON, and nothing else.`,
    );
  });

  it('lists several flags in order', () => {
    expect(feedbackFor({ flags: ['scope_too_short', 'few_keywords'] })).toContain('checks: scope must say what the chunk covers in at least 15 characters; keywords_synonyms needs at least 3 distinct terms.');
  });
});
