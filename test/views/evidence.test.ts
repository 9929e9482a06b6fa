import { describe, expect, it } from 'vitest';
import { checkerFor } from '../../src/contracts/checkers.js';
import type { ChunkContext } from '../../src/contracts/chunk.js';
import { quantityFlags, ruledOutFlags } from '../../src/views/claims.js';
import { chunkViewEvidence } from '../../src/views/evidence.js';
import { locate, splitSentences } from '../../src/views/evidence-match.js';
import { feedbackFor } from '../../src/views/feedback.js';
import { EvidenceText, normalisedForm } from '../../src/views/evidence-text.js';
import { GroundingText } from '../../src/views/grounding.js';
import { sectionSources, validateSectionSummary } from '../../src/views/section-validate.js';
import { validateView } from '../../src/views/validate-view.js';
import { emptyView } from '../../src/views/view-skeleton.js';

const TEXT =
  'AFW Train B remained available. No safety injection or reactor trip occurred.\n\n| Source | Value | Units | Notes | |---|---|---|---| | VB-101A peak | 6.2 | mils | Alarm setpoint 5.0 mils | | PT-1102 | 1,175 | psig | Within normal range |\nVibration was below 3.0 mils after the coupling was realigned, although some leakage was observed.';
const text = new EvidenceText(TEXT);
const at = (span: { start: number; end: number }): string => TEXT.slice(span.start, span.end);

describe('normalisation', () => {
  it.each<[string, string]>([
    ['**Alarm**  Setpoint', 'alarm setpoint'],
    ['1,175 psig', '1175 psig'],
    ['5.0 mils', '5 mils'],
    ['6.20', '6.2'],
    ['P‑101A (hyphen variant)', 'p-101a hyphen variant'],
    ['| VB-101A peak | 6.2 |', 'vb-101a peak 6.2'],
    ['≤ 185 °F', '≤ 185 ° f'],
  ])('%j → %j', (value, form) => {
    expect(normalisedForm(value)).toBe(form);
  });
});

describe('locate: where an item is supported, and how it matched', () => {
  it('exact: the item as written, on word boundaries', () => {
    const l = locate('AFW Train B remained available', text);
    expect(l.match).toBe('exact');
    expect(l.score).toBe(1);
    expect(at(l.spans[0]!)).toBe('AFW Train B remained available');
  });

  it('normalised: case, table pipes, number formatting', () => {
    const l = locate('vb-101a peak 6.2 mils', text);
    expect(l.match).toBe('normalised');
    expect(at(l.spans[0]!)).toBe('VB-101A peak | 6.2 | mils');
    expect(at(locate('PT-1102 1175 psig', text).spans[0]!)).toBe('PT-1102 | 1,175 | psig');
    expect(locate('alarm setpoint 5 MILS', text).match).toBe('normalised');
  });

  it('partial: a clause holding most of its content words, with the covered share as score', () => {
    const l = locate('vibration fell below 3.0 mils', text);
    expect(l.match).toBe('partial');
    expect(l.score).toBe(0.8);
    expect(at(l.spans[0]!)).toBe('Vibration was below 3.0 mils');
  });

  it('none: no clause supports it; digits of an identifier are not a value', () => {
    expect(locate('the turbine overspeed trip tested satisfactorily', text)).toMatchObject({ match: 'none', spans: [] });
    expect(locate('101a', text).match).toBe('none');
    expect(locate('6', text).match).toBe('none');
  });

  it('an item of several sentences is as good as its worst sentence', () => {
    const l = locate('AFW Train B remained available. The turbine overspeed trip was tested satisfactorily.', text);
    expect(l.match).toBe('none');
  });

  it('splits sentences with their offsets', () => {
    const s = 'Pump tripped. Flow was 465 gpm; it recovered.';
    expect(splitSentences(s).map((x) => s.slice(x.start, x.end))).toEqual(['Pump tripped.', 'Flow was 465 gpm; it recovered.']);
  });
});

describe('quantities: a number keeps its unit and its comparator', () => {
  it.each<[string, string[]]>([
    ['6.2 mils', []],
    ['6.2 psig', ['wrong_unit:6.2 psig']],
    ['5.0 psig', ['wrong_unit:5.0 psig']],
    ['below 3.0 mils', []],
    ['above 3.0 mils', ['contradicted_comparator:above 3.0 mils']],
    ['greater than 3.0 mils', ['contradicted_comparator:greater than 3.0 mils']],
    ['vibration above 5.0 mils alarm setpoint', []],
    ['1175 psig', []],
  ])('%j → %j', (item, flags) => {
    expect(quantityFlags(item, text)).toEqual(flags);
  });

  it('a negated comparator turns round: "do not … for more than 2 minutes" is an upper limit', () => {
    const t = new EvidenceText('Do not operate the pump with MOV-204A closed for more than 2 minutes.');
    expect(quantityFlags('no more than 2 minutes', t)).toEqual([]);
    expect(quantityFlags('at most 2 minutes', t)).toEqual([]);
    expect(quantityFlags('at least 2 minutes', t)).toEqual(['contradicted_comparator:at least 2 minutes']);
  });
});

const CTX: ChunkContext = { doc_id: 'CR-1', doc_type: 'CR', chunk_id: 'C1', section_path: 'CR-1 AFW Pump P-101A > Description', page_start: null, page_end: null, authority_level: 'informational', section_role: 'body' };

function frame(observed: string[]): Record<string, unknown> {
  return { ...emptyView('rca_frame', CTX), observed };
}

describe('claim checks of a view', () => {
  const flagsOf = (observed: string[]): string[] => validateView('rca_frame', frame(observed), CTX, TEXT).flags;

  it('faithful items pass, paraphrased or not', () => {
    expect(flagsOf(['AFW Train B remained available', 'No safety injection or reactor trip occurred.', 'no reactor trip occurred', 'vibration fell below 3.0 mils', 'some leakage was observed'])).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['a negated statement', 'AFW Train B did not remain available', 'negation_mismatch:AFW Train B did not remain available'],
    ['a ruled-out fact stated as true', 'reactor trip occurred', 'negation_mismatch:reactor trip occurred'],
    ['a sentence from elsewhere', 'Operators isolated the charging line', 'unsupported_item:observed[0]'],
    ['a changed number', 'VB-101A peak 7.2 mils', 'ungrounded_number:7.2 in "VB-101A peak 7.2 mils"'],
    ['an invented id', 'PT-1103 at 1175 psig', 'ungrounded_id:PT-1103'],
    ['an invented system', 'CCW Train B remained available', 'novel_entity:CCW'],
    ['an invented component name', 'the Charging pump remained available', 'novel_entity:charging pump'],
  ])('%s is flagged', (_name, item, flag) => {
    expect(flagsOf([item])).toContain(flag);
  });

  it('an item cut inside a limit ("CAUTION: Do not" of "Do not exceed 80%") is the text as written, not a negation; the limit itself is a comparator', () => {
    const t = 'CAUTION: Do not exceed 80% on MOV-1041B prior to completing Step 4.4.';
    expect(validateView('rca_frame', frame(['CAUTION: Do not']), CTX, t).flags).toEqual([]);
    expect(validateView('rca_frame', frame(['exceed 80% on MOV-1041B']), CTX, t).flags).toEqual(['contradicted_comparator:exceed 80%']);
  });

  it('names in the section path or document id are not novel', () => {
    expect(flagsOf(['AFW Train B remained available on P-101A'])).toEqual([]);
  });

  it("the tag stage's negated mentions: an item stating one as a fact is ruled_out", () => {
    const negated = [{ text: 'reactor trip', kind: 'outcomes', cue: 'No' }];
    expect(ruledOutFlags('reactor trip', negated)).toEqual(['ruled_out:reactor trip']);
    expect(ruledOutFlags('no reactor trip', negated)).toEqual([]);
    const view = { ...emptyView('retrieval_summary', CTX), scope: 'AFW Train B remained available.', keywords_synonyms: ['afw', 'trip', 'train'], diagnostics: ['reactor trip'] };
    expect(validateView('retrieval_summary', view, CTX, TEXT, { negated }).flags).toEqual(['ruled_out:reactor trip']);
  });

  it('an alarm named for a ruled-out event states the alarm, not the event', () => {
    const negated = [{ text: 'fire', kind: 'outcomes', cue: 'no' }];
    expect(ruledOutFlags('The fire alarm sounded in the warehouse.', negated)).toEqual([]);
    expect(ruledOutFlags('The fire alarm sounded after the fire started.', negated)).toEqual(['ruled_out:fire']);
  });
});

describe('the evidence record', () => {
  it('every item, with its spans, match, score and checks; a grounding summary; within the view_evidence contract', () => {
    const view = { ...emptyView('retrieval_summary', CTX), scope: 'The CR records elevated vibration on P-101A.', symptoms_outcomes: ['reactor trip'], numbers_limits: ['6.2 mils', '101a'], keywords_synonyms: ['vibration', 'afw', 'pump'] };
    const { evidence, flags } = chunkViewEvidence('retrieval_summary', view, new GroundingText(TEXT), 'C1', { context: [CTX.section_path] });
    expect(checkerFor('view_evidence')(evidence)).toBeNull();
    expect(evidence.items.map((i) => [i.field, i.index, i.role, i.match])).toEqual([
      ['scope', 0, 'summary', 'none'],
      ['symptoms_outcomes', 0, 'claim', 'exact'],
      ['numbers_limits', 0, 'claim', 'normalised'],
      ['numbers_limits', 1, 'claim', 'none'],
      ['keywords_synonyms', 0, 'free', 'normalised'],
      ['keywords_synonyms', 1, 'free', 'normalised'],
      ['keywords_synonyms', 2, 'free', 'none'],
    ]);
    expect(evidence.items[1]!.spans).toEqual([{ source: 'chunk', id: 'C1', start: TEXT.indexOf('reactor trip'), end: TEXT.indexOf('reactor trip') + 12 }]);
    expect(evidence.items[3]!.checks).toEqual(['unsupported_item:numbers_limits[1]', 'ungrounded_number:101 in "101a"']);
    expect(evidence.grounding).toEqual({ items: 4, exact: 0.25, normalised: 0.25, partial: 0, none: 0.5, entities: 0, novel_entities: 0, novel_entity_rate: null });
    expect(flags).toEqual(['negation_mismatch:reactor trip', 'unsupported_item:numbers_limits[1]', 'ungrounded_number:101 in "101a"']);
  });

  it('the floor: weak_grounding below the share of exact or normalised items', () => {
    const view = { ...emptyView('rca_frame', CTX), observed: ['AFW Train B remained available', 'vibration fell below 3.0 mils'] };
    expect(validateView('rca_frame', view, CTX, TEXT, { floor: 0.75 }).flags).toEqual(['weak_grounding:0.5']);
    expect(validateView('rca_frame', { ...view }, CTX, TEXT, { floor: 0.5 }).flags).toEqual([]);
  });

  it('a section summary points at the chunk (and offset in it) each sentence comes from', () => {
    const chunks = ['Pump P-101A tripped on high vibration.', 'Operators started Pump P-101B within 2 minutes.'];
    const section = { section_id: 'S1', doc_id: 'D1', section_path: 'Events', title: 'Events', level: 1, parent_id: null, child_count: 0, total_count: 2, page_start: null, page_end: null, text: chunks.join('\n\n'), chunk_ids: ['c1', 'c2'] };
    const sources = sectionSources(section, [{ title: 'Cause', summary: 'Bearing wear was found.', section_id: 'S2' }]);
    const view = { summary: 'Pump P-101A tripped on high vibration. Operators started Pump P-101B within 2 minutes. Bearing wear was found. The turbine was overhauled.', concepts: ['high vibration'] };
    const { evidence, flags } = validateSectionSummary(view, section, sources);
    expect(evidence.items.map((i) => [i.field, i.index, i.match, i.spans])).toEqual([
      ['summary', 0, 'exact', [{ source: 'chunk', id: 'c1', start: 0, end: chunks[0]!.length }]],
      ['summary', 1, 'exact', [{ source: 'chunk', id: 'c2', start: 0, end: chunks[1]!.length }]],
      ['summary', 2, 'exact', [{ source: 'child', id: 'S2', start: 0, end: 23 }]],
      ['summary', 3, 'none', []],
      ['concepts', 0, 'exact', [{ source: 'chunk', id: 'c1', start: chunks[0]!.indexOf('high'), end: chunks[0]!.indexOf('high') + 14 }]],
    ]);
    expect(flags).toContain('unsupported_item:summary[3]');
  });
});

describe('retry feedback names what a claim check found', () => {
  it.each<[string, string]>([
    ['wrong_unit:6.2 psig', '"6.2 psig" has a unit CHUNK_TEXT does not give that number'],
    ['negation_mismatch:reactor trip', '"reactor trip" reverses CHUNK_TEXT'],
    ['unsupported_item:observed[2]', 'observed[2] says something no sentence of CHUNK_TEXT states'],
    ['ungrounded_number:101 in "101a"', 'the number 101 in "101a" does not occur in CHUNK_TEXT'],
  ])('%s', (flag, says) => {
    expect(feedbackFor({ flags: [flag] })).toContain(says);
  });
});

describe('a text over EVIDENCE_MAX_CHARS', () => {
  it('is located by exact match only, says so in its grounding summary, and still checks numbers', async () => {
    const { EVIDENCE_MAX_CHARS } = await import('../../src/views/evidence.js');
    const sentence = 'Pump P-101A vibration rose to 6.2 mils. ';
    const text = sentence.repeat(Math.ceil((EVIDENCE_MAX_CHARS + 1) / sentence.length));
    const view = { observed: ['Pump P-101A vibration rose to 6.2 mils', 'vibration ROSE to 6.2 mils', 'vibration rose to 7.9 mils'], hypotheses: [], tests_to_confirm: [], candidate_actions: [], constraints: [] };
    const { evidence } = chunkViewEvidence('rca_frame', view, new GroundingText(text), 'c1');
    expect(evidence.grounding.limited).toBe(true);
    expect(evidence.items.map((i) => i.match)).toEqual(['exact', 'none', 'none']);
    expect(evidence.items[0]!.spans).toEqual([{ source: 'chunk', id: 'c1', start: 0, end: sentence.length - 2 }]);
    expect(evidence.items[2]!.checks).toContain('ungrounded_number:7.9 in "vibration rose to 7.9 mils"');
    const small = chunkViewEvidence('rca_frame', view, new GroundingText(sentence), 'c1').evidence;
    expect(small.grounding.limited).toBeUndefined();
    expect(small.items[1]!.match).toBe('normalised');
  });
});
