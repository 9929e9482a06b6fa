// The layout reading of a chunk (src/tagging/layout.ts): each rule on constructed text of the
// shapes real documents have (hard-wrapped prose, field blocks, boxed forms, step tables, letters).
import { describe, expect, it } from 'vitest';
import { readingOf, readsAsProse, wrapHyphenAt, type LineKind } from '../../src/tagging/layout.js';

/** Each non-blank line of the reading with its kind ('prose' or 'row' for the lines views read). */
function kinds(text: string): Array<[string, LineKind | 'read']> {
  const reading = readingOf(text);
  const marked = new Map<number, LineKind>();
  for (let i = 0; i < reading.nonProse.length; i += 2) marked.set(reading.nonProse[i]!, reading.nonProseKinds[i / 2]!);
  const out: Array<[string, LineKind | 'read']> = [];
  let start = 0;
  for (const line of reading.text.split('\n')) {
    if (line.trim() !== '') out.push([line.trim(), marked.get(start) ?? 'read']);
    start += line.length + 1;
  }
  return out;
}

const labelsOf = (text: string): string[] => {
  const r = readingOf(text);
  const out: string[] = [];
  for (let i = 0; i < r.formLabels.length; i += 2) out.push(r.text.slice(r.formLabels[i], r.formLabels[i + 1]));
  return out;
};

describe('readingOf: hard-wrapped prose is joined', () => {
  it.each<[string, string, string]>([
    ['a line that does not end its sentence', 'The pump was started at the\nrequest of the shift manager.', 'The pump was started at the request of the shift manager.'],
    ['a wrap before a lower-case word', 'Operators noted high bearing temperature\nand stopped the pump.', 'Operators noted high bearing temperature and stopped the pump.'],
    ['a long line broken before a capital', 'During the quarterly surveillance of the standby diesel generator, the\nOperators found the fuel rack binding.', 'During the quarterly surveillance of the standby diesel generator, the Operators found the fuel rack binding.'],
    ['an end-of-line hyphenation', 'The valve was de-\nsigned for low flow and the equip-\nment was replaced.', 'The valve was designed for low flow and the equipment was replaced.'],
    ['a prefix keeps its hyphen', 'A non-\nsafety bus and a self-\nidentified error were found in the post-\ntrip review.', 'A non-safety bus and a self-identified error were found in the post-trip review.'],
    ['a prefix before its own vowel keeps its hyphen', 'The crew found a pre-\nexisting crack and had to de-\nenergize the bus.', 'The crew found a pre-existing crack and had to de-energize the bus.'],
    ['an identifier cut at its hyphen', 'The operators closed valve 1-\nFCV-62-93 and Safety-\nRelated breaker 2B.', 'The operators closed valve 1-FCV-62-93 and Safety-Related breaker 2B.'],
    ['an opening bracket at the line end', 'Flow to the reactor core isolation cooling (\nRCIC) system was lost.', 'Flow to the reactor core isolation cooling (RCIC) system was lost.'],
    ['a blank line inside a sentence (double-spaced scan)', 'The program is an\n\nintegrated staff effort to collect data.', 'The program is an integrated staff effort to collect data.'],
    ['stray marks between the halves of a sentence', 'These corrective actions will be\n\n.\n\ni\n\nexamined during future inspections.', 'These corrective actions will be examined during future inspections.'],
    ['a capitalised stretch inside a sentence', 'The leak was found in the\nTurbine Building\nnear the condenser.', 'The leak was found in the Turbine Building near the condenser.'],
    ['a sentence that opens with capitalised words', 'On 3 May 2001, Example Utilities, Example Generating Station\nnotified the vendor of the failure.', 'On 3 May 2001, Example Utilities, Example Generating Station notified the vendor of the failure.'],
  ])('%s', (_name, text, expected) => {
    expect(readingOf(text).text).toBe(expected);
  });

  it.each<[string, string]>([
    ['a line that ends its sentence', 'The pump tripped.\nThe operator reset it.'],
    ['a list item', 'Perform the following\n1. Close the valve.\n2. Stop the pump.'],
    ['a bullet', 'Check the following\n- suction pressure\n- discharge pressure'],
    ['a short line before a capital', 'Replace bearing\nNotify supervisor'],
    ['two paragraphs', 'The pump tripped at the\n\n\n\n\n\n\n\nend.'],
  ])('not joined: %s', (_name, text) => {
    expect(readingOf(text).text).toBe(text);
  });

  it('a boxed paragraph loses its frame and is joined', () => {
    const text = '| "During the installation of a more accurate level |\n| instrument, it was found that the range was wrong." |';
    expect(readingOf(text).text).toBe('"During the installation of a more accurate level instrument, it was found that the range was wrong."');
  });

  it('a text with nothing to join is returned as it is (the same string)', () => {
    const text = 'AFW Train B remained available. No reactor trip occurred.\n\n| Source | Value |\n|---|---|\n| FT-1102 | 465 gpm |';
    expect(readingOf(text).text).toBe(text);
    expect(readingOf(text).nonProse).toHaveLength(0);
  });
});

describe('readingOf: what each line is', () => {
  it.each<[string, string, LineKind | 'read', string?]>([
    ['a field', 'Docket No.: 50-123', 'field'],
    ['two fields on a line', 'City: Springfield   State: IL', 'field'],
    ['a field row of a boxed form', '| FACILITY: EXAMPLE        REGION:  3  |NOTIFICATION DATE: 02/02/2002|', 'field'],
    ['a label over a value', 'RX Type:', 'field'],
    ['a label over prose is a heading', 'Purpose:', 'heading'],
    ['checkboxes', '[X] 50.73(a)(2)(i)(B)', 'checkbox'],
    ['unit checkboxes', 'UNIT:  [1] [] []', 'checkbox'],
    ['a table border', '+------------------------------------------+', 'border'],
    ['a heading in capitals', 'DESCRIPTION OF OCCURRENCE', 'heading'],
    ['a numbered heading', '1.0 DESCRIPTION OF THE EVENT', 'heading'],
    ['a title', 'Event Notification Report for May 1, 2020', 'heading'],
    ['a references line', 'References: Letter from the licensee dated May 2, 2020, LER 2020-001-00', 'reference'],
    ['a distribution line', 'cc: Regional Administrator, Resident Inspector', 'reference'],
    ['a page footer', 'Page 2 of 3', 'furniture'],
    ['a page counter', '1 of 67', 'furniture'],
    ['a list of numbers', '56550 56551 56553', 'furniture'],
    ['an address', 'Springfield, IL 62704', 'address'],
    ['a post office box', 'P.O. Box 388 Example River', 'address'],
    ['a salutation', 'Dear Mr. Smith:', 'signature'],
    ['a closing', 'Sincerely,', 'signature'],
    ['stray OCR marks', '. _._', 'noise'],
    ['an instruction in capitals is a step', '3. CHECK SI PUMPS - RUNNING', 'read'],
    ['an instruction verb in capitals first', 'VERIFY Reactor Trip;', 'read'],
    ['after an adverb', 'Manually CLOSE all MSIVs', 'read'],
    ['a labelled sentence is prose', 'Results: Of the three areas inspected, no violations were identified.', 'read'],
    ['a sentence then a reference label is prose', 'Work completed on the pump. Related: CR-2026-00418.', 'read'],
    ['a bulleted item', '• Vent', 'read'],
    ['prose', 'The pump tripped on low suction pressure.', 'read'],
    ['a markdown table row', '| VB-101A peak | 6.2 | mils |', 'read'],
  ])('%s', (_name, line, kind, after) => {
    // A label is read beside what follows it: a value for a field, prose for a heading.
    const next = after ?? (kind === 'heading' && line.endsWith(':') ? 'This procedure starts the pump.' : line.endsWith(':') ? 'Comments: none' : 'The pump is started from the control room.');
    expect(kinds(`${line}\n${next}`).find(([l]) => l === line.trim())?.[1]).toBe(kind);
  });

  it('rows between table borders are fields; a markdown table is read', () => {
    const form = '+-----+----------+\n|UNIT |SCRAM CODE|\n+-----+----------+\n|1    |N         |\n+-----+----------+';
    expect(kinds(form).map(([, k]) => k)).toEqual(['border', 'field', 'border', 'field', 'border']);
    const markdown = '| Source | Value |\n|---|---|\n| FT-1102 | 465 gpm |';
    expect(kinds(markdown).map(([, k]) => k)).toEqual(['read', 'read', 'read']);
  });
});

describe('readingOf: form labels', () => {
  it('the labels and captions of a field block, not its values', () => {
    const text = 'Power Reactor\nEvent Number: 12345\nFacility: Example\nRegion: 3     State: OH\nPerson (Organization):\nPower Reactor Unit Info\nUnit SCRAM Code RX Crit\n1 N Y 100 Power Operation';
    expect(labelsOf(text)).toEqual(['Power Reactor', 'Event Number', 'Facility', 'Region', 'State', 'Person (Organization)', 'Power Reactor Unit Info', 'Unit SCRAM Code RX Crit']);
  });

  it('a heading label over prose is no form label; a reporting criterion is a value', () => {
    expect(labelsOf('Purpose:\nThis notice alerts addressees to pump failures.')).toEqual([]);
    expect(labelsOf('10 CFR Section:\n50.72(b)(3)(iv)(A) - Valid Specif Sys Actuation\nPerson (Organization):')).toEqual(['10 CFR Section', 'Person (Organization)']);
  });

  it('offsets are in the reader\'s text, after joins', () => {
    const text = 'The valve was de-\nsigned for flow.\nEvent Number: 12345\nFacility: Example';
    const r = readingOf(text);
    expect(r.text.startsWith('The valve was designed for flow.\n')).toBe(true);
    expect(labelsOf(text)).toEqual(['Event Number', 'Facility']);
  });
});

describe('readingOf: summary', () => {
  it('headings, inline headings and the opening prose', () => {
    const r = readingOf('DESCRIPTION OF OCCURRENCE\n\nOn May 1 the pump tripped.\n\n2. Cause The cause was a worn bearing.');
    expect(r.summary.headings).toEqual(['DESCRIPTION OF OCCURRENCE', '2. Cause The']);
    expect(r.summary.opening).toBe('On May 1 the pump tripped.');
  });

  it('an inline heading in capitals before a capitalised word', () => {
    expect(readingOf('EXECUTIVE SUMMARY This inspection reviewed the program.').summary.headings).toEqual(['EXECUTIVE SUMMARY']);
    expect(readingOf('A. PURPOSE This procedure provides actions.').summary.headings).toEqual(['A. PURPOSE This']);
  });

  it('a step table, a letter, a field block', () => {
    expect(readingOf('STEP ACTION/EXPECTED RESPONSE RESPONSE NOT OBTAINED\n1. VERIFY Reactor Trip').summary.stepTable).toBe(true);
    expect(readingOf('Dear Mr. Smith:\nThe enclosed report documents the results.').summary.letter).toBe(true);
    expect(readingOf('ATTN: Document Control Desk\nWashington, DC 20555').summary.letter).toBe(true);
    const form = readingOf('Event Number: 1\nFacility: Example\nRegion: 3').summary;
    expect([form.fieldLines, form.proseLines]).toEqual([3, 0]);
  });
});

describe('readsAsProse', () => {
  it.each<[string, boolean]>([
    ['The pump tripped on low suction pressure.', true],
    ['Start P-101A.', true],
    ['Vent', true],
    ['Replace bearing', true],
    ['VERIFY Reactor Trip', true],
    ['U.S. Nuclear Regulatory Commission Document Control Desk Washington, D.C.', false],
    ['Example Valley Authority, Post Office Box 2000, Example City, Alabama', false],
    ['Information Notice No. 99-01: Failure of Check Valves Subjected to Low Flow', false],
  ])('%j → %s', (sentence, expected) => {
    expect(readsAsProse(sentence)).toBe(expected);
  });
});

describe('wrapHyphenAt', () => {
  it.each<[string, { resume: number; dropped: boolean } | null]>([
    ['equip-\nment', { resume: 7, dropped: true }],
    ['pre-\nexisting', { resume: 5, dropped: false }],
    ['1-\nFCV', { resume: 3, dropped: false }],
    ['flux -\nDECREASING', null],
    ['equip-ment', null],
  ])('%j', (text, expected) => {
    expect(wrapHyphenAt(text, text.indexOf('-'))).toEqual(expected);
  });
});
