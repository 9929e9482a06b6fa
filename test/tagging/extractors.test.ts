import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../src/contracts/chunk.js';
import { extractPatterns, type PatternSpans } from '../../src/tagging/extractors.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const jsonl = (path: string) =>
  read(path)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const CHUNKS = jsonl('test/fixtures/dackar/ad61d26ecf6e_chunks.jsonl');
const SCENARIO = jsonl('test/fixtures/dackar/test_case_3/processed_records.jsonl').filter(
  (record) => typeof record.raw_text === 'string',
);
const CHUNK_TEXTS = CHUNKS.map((record) => String(record.text));

const EMPTY: PatternSpans = { equipment_ids: [], doc_refs: [], alarm_ids: [], measurements: [], temporal_refs: [], fm_ids: [] };
const spans = (partial: Partial<PatternSpans>): PatternSpans => ({ ...EMPTY, ...partial });
const m = (value: string, unit: string, text = `${value} ${unit}`): Measurement => ({ value, unit, text });

type StringField = Exclude<keyof PatternSpans, 'measurements'>;

// Positive cases state the whole output, so a span leaking into another family fails them too.
// Negative cases state only that the family itself stays empty.
const STRING_FAMILIES: ReadonlyArray<{
  field: StringField;
  positive: ReadonlyArray<readonly [string, Partial<PatternSpans>]>;
  negative: readonly string[];
}> = [
  {
    field: 'equipment_ids',
    positive: [
      ['Pump P-101A tripped', { equipment_ids: ['P-101A'] }],
      ['AFW-P-101 and MOV-204A', { equipment_ids: ['AFW-P-101', 'MOV-204A'] }],
      ['FT-1102 and PT-1102 read normal', { equipment_ids: ['FT-1102', 'PT-1102'] }],
      ['RHR-MOV-204A stroked closed', { equipment_ids: ['RHR-MOV-204A'] }],
      ['1-RC-P-1A running', { equipment_ids: ['1-RC-P-1A'] }],
      ['sensor U2-AIT-0341 and U2-CND-HOTWELL', { equipment_ids: ['U2-AIT-0341', 'U2-CND-HOTWELL'] }],
      ['The P-101A/P-101B pumps', { equipment_ids: ['P-101A', 'P-101B'] }],
      ['see (FT-1102).', { equipment_ids: ['FT-1102'] }],
      ['EDG DG-1A and HX-12', { equipment_ids: ['DG-1A', 'HX-12'] }],
      ['Pump P-2A tripped; P-7B started', { equipment_ids: ['P-2A', 'P-7B'] }],
      ['P-101A, then P-101A again', { equipment_ids: ['P-101A'] }],
      // Both members of a pair, unit-prefixed and starred plant tags.
      ['Pumps P-101A/B tripped', { equipment_ids: ['P-101A', 'P-101B'] }],
      ['valves 1SI-8801A and 2RCS*PT455', { equipment_ids: ['1SI-8801A', '2RCS*PT455'] }],
    ],
    negative: [
      'CR-2026-00123 WO-2026-04567 SOP-101 OP-1234 ECA-2026-0007 PM-12345 LER-123-2020-001 NCR-2026-001',
      'CR-2026 and PM-U2-CND-EXPJOINT-INSP-A and OE-INPO-2023-CND-047',
      'Date 2026-02-06, stamped 2026-02-06T03:22:00Z',
      'grid A-1 and B-2, window A-14',
      'ALM-1234 PAS-1234-HI 1-FW-LO-FLOW',
      'CONDENSER-MAIN in-leakage HI-HI',
      'actions CA-1, CA-2, CA-3',
      'FM-12 is a failure mode',
      'Annunciator ALB-04 and alarm 1-AR-B4 came in',
      '12-34A is a bare number',
      'I-131 and U-235 activity per NUREG-0800',
      'U2-CND-HOTWELL-ish',
      'TECH-SPEC-3.7.2 and 100-120 gpm',
      'FM_AIR_INLEAK and CONDENSER_TRAIN_A',
      'p-101a written in lower case',
    ],
  },
  {
    field: 'doc_refs',
    positive: [
      ['see CR-2026-00123', { doc_refs: ['CR-2026-00123'] }],
      ['Related Work Order planned: WO-2026-04567.', { doc_refs: ['WO-2026-04567'] }],
      ['WO 12345678 and WO-123456', { doc_refs: ['WO 12345678', 'WO-123456'] }],
      ['PM 12345, PM-1234', { doc_refs: ['PM 12345', 'PM-1234'] }],
      ['ECA-2026-0007, EC-12345, DCN-1234, ECN-7654321', { doc_refs: ['ECA-2026-0007', 'EC-12345', 'DCN-1234', 'ECN-7654321'] }],
      ['SOP-101, OP-1234, OP-1234.2, MP-22, SP-101', { doc_refs: ['SOP-101', 'OP-1234', 'OP-1234.2', 'MP-22', 'SP-101'] }],
      ['EOP-E-0 then EOP-ES-1.1 and AOP-12-3', { doc_refs: ['EOP-E-0', 'EOP-ES-1.1', 'AOP-12-3'] }],
      ['per SOP-U2-CND-001 Step 4.2', { doc_refs: ['SOP-U2-CND-001'] }],
      ['LER 123-2020-001, LER-123-2020-001', { doc_refs: ['LER 123-2020-001', 'LER-123-2020-001'] }],
      ['GL 2008-01, IN 2019-05, IN-2019-05', { doc_refs: ['GL 2008-01', 'IN 2019-05', 'IN-2019-05'] }],
      ['BULLETIN 2012-01, BUL-2012-01', { doc_refs: ['BULLETIN 2012-01', 'BUL-2012-01'] }],
      ['SER-2010-05, IER-2011-04, OE-12345', { doc_refs: ['SER-2010-05', 'IER-2011-04', 'OE-12345'] }],
      ['NCR-2026-001, NCR-12345, PER-2019-12345, AR-1234567', { doc_refs: ['NCR-2026-001', 'NCR-12345', 'PER-2019-12345', 'AR-1234567'] }],
      ['CAP-2026-00123, CAP2026-00124, CAP-123456', { doc_refs: ['CAP-2026-00123', 'CAP2026-00124', 'CAP-123456'] }],
      ['CR-2026-00123 twice: CR-2026-00123', { doc_refs: ['CR-2026-00123'] }],
      // Plant PM/task ids, action ids and regulatory or standard references.
      ['Review PM-U2-CND-EXPJOINT-INSP-A and PM-U2-AIR-EJECTOR-SURV-Q', { doc_refs: ['PM-U2-CND-EXPJOINT-INSP-A', 'PM-U2-AIR-EJECTOR-SURV-Q'] }],
      ['actions CA-1 and CA-12', { doc_refs: ['CA-1', 'CA-12'] }],
      [
        'per 10 CFR 50.59, NUREG-1801, Reg Guide 1.97, IEEE 323-1974, TECH-SPEC-3.7.2, Tech Spec 3.7.5 and LCO 3.0.3',
        { doc_refs: ['10 CFR 50.59', 'NUREG-1801', 'Reg Guide 1.97', 'IEEE 323-1974', 'TECH-SPEC-3.7.2', 'Tech Spec 3.7.5', 'LCO 3.0.3'] },
      ],
    ],
    negative: [
      'CR-2026 alone',
      'CR-2026-00123-01 is a sub-item number',
      'WO-1234 is too short',
      'cr-2026-00123 in lower case, installed in 2019-05',
      'PM-U2 alone',
      'P-101A and FT-1102',
      'Step 4.2 of the procedure',
      'IER-2011-4',
    ],
  },
  {
    field: 'alarm_ids',
    positive: [
      ['ALM-1234 and ALM-1234A', { alarm_ids: ['ALM-1234', 'ALM-1234A'] }],
      ['ANN-A-1 then ANNUNC-B-12', { alarm_ids: ['ANN-A-1', 'ANNUNC-B-12'] }],
      ['WINDOW A-14 lit; Window A-14 again', { alarm_ids: ['WINDOW A-14'] }],
      ['PAS-1234-HI and PAH-123', { alarm_ids: ['PAS-1234-HI', 'PAH-123'] }],
      ['1-FW-LO-FLOW alarm', { alarm_ids: ['1-FW-LO-FLOW'] }],
      // A tag named as an annunciator or alarm point is an alarm id, not equipment.
      ['Annunciator ALB-04 and alarm 1-AR-B4 came in', { alarm_ids: ['ALB-04', '1-AR-B4'] }],
      ['1-RC-P-1A-HI-PRESS and 2-CS-HI-HI', { alarm_ids: ['1-RC-P-1A-HI-PRESS', '2-CS-HI-HI'] }],
    ],
    negative: ['ALM-12', 'ANN-AB-1', 'window A-14', '1-RC-P-1A', 'FT-1102 and RC-0001A', 'PAS-12', 'HI-HI alarm'],
  },
  {
    field: 'temporal_refs',
    positive: [
      ['Date Initiated 2026-02-06', { temporal_refs: ['2026-02-06'] }],
      ['at 2026-02-06T03:22:00Z', { temporal_refs: ['2026-02-06T03:22:00Z'] }],
      ['on 2/6/2026 and 02/06/26, and 12/31/1999', { temporal_refs: ['2/6/2026', '02/06/26', '12/31/1999'] }],
      ['February 6, 2026; Sept. 3, 2025; FEBRUARY 6TH, 2026', { temporal_refs: ['February 6, 2026', 'Sept. 3, 2025', 'FEBRUARY 6TH, 2026'] }],
      ['6 FEB 2026 and 06-Feb-2026', { temporal_refs: ['6 FEB 2026', '06-Feb-2026'] }],
      ['feb 2026, January 2023, JANUARY 2023', { temporal_refs: ['feb 2026', 'January 2023'] }],
      ['On February 6 the pump', { temporal_refs: ['February 6'] }],
      ['runback at 03:22 UTC, logged 14:05:30 and 0322 hours', { temporal_refs: ['03:22 UTC', '14:05:30', '0322 hours'] }],
      ['stopped within 2 minutes', { temporal_refs: ['within 2 minutes'] }],
      ['48 hours, 14 days, 3 shifts, for 30 min', { temporal_refs: ['48 hours', '14 days', '3 shifts', 'for 30 min'] }],
      ['drift over 14 days, a 24-hour run, 2 to 3 days', { temporal_refs: ['over 14 days', '24-hour', '2 to 3 days'] }],
      // Four-digit clock times with their zone, as event reports write them.
      ['the breaker opened at 2217 CST and closed 0041 EST', { temporal_refs: ['2217 CST', '0041 EST'] }],
      ['Notified 1309 ET; restored 0705 Mountain Standard Time', { temporal_refs: ['1309 ET', '0705 Mountain Standard Time'] }],
      ['alarm at 1542 Pacific Daylight Time (PDT)', { temporal_refs: ['1542 Pacific Daylight Time'] }],
      // Zones in brackets and parentheses, glued or spaced; a.m./p.m.
      ['NOTIFICATION TIME: 06:12[CDT] EVENT TIME: 05:58 [ET] (07:40 (MST))', { temporal_refs: ['06:12[CDT]', '05:58 [ET]', '07:40 (MST)'] }],
      ['started at 9:41 p.m. and 10:02 UTC', { temporal_refs: ['9:41 p.m.', '10:02 UTC'] }],
      // A bare four-digit time after "at", when the clause goes on with a comma or "on".
      ['At 0316, operators tripped the pump; at 2250 on June 3, 2024 it ran', { temporal_refs: ['0316', '2250', 'June 3, 2024'] }],
      ['at approximately 0300, the crew; at about 0415 on May 3', { temporal_refs: ['0300', '0415', 'May 3'] }],
    ],
    negative: [
      'the valve stroked at 1500 psig and the bus at 4160 volts',
      'at 2575, the count',
      'flow at 1200 gpm, then 0900 on the chart',
      'pressure was 1430 CDTX',
      '13/45/2026 and 2026-13-01',
      'the 2023 event',
      'it may 5',
      'Step 4.2 and §4.3',
      '12:75 and ratio 1:2',
      'CR-2026-02-06 is not a date',
      'WO-2026-04567',
    ],
  },
  {
    field: 'fm_ids',
    positive: [
      ['Failure mode FM_AIR_INLEAK', { fm_ids: ['FM_AIR_INLEAK'] }],
      ['FM_BEARING_WEAR_2 and FM_AIR_INLEAK', { fm_ids: ['FM_BEARING_WEAR_2', 'FM_AIR_INLEAK'] }],
      ['(FM_SEAL_LEAK).', { fm_ids: ['FM_SEAL_LEAK'] }],
      ['FM_X, FM_X', { fm_ids: ['FM_X'] }],
      ['FM_2026_TRIP', { fm_ids: ['FM_2026_TRIP'] }],
      ['failure mode FM-12 applies', { fm_ids: ['FM-12'] }],
    ],
    negative: ['fm_air_inleak', 'FM_Air', 'FM_', 'XFM_AIR', 'FMEA-U2-CND-001', 'FM AIR INLEAK', 'FM_AIR_INLEAK_'],
  },
];

describe.each(STRING_FAMILIES)('$field', ({ field, positive, negative }) => {
  it.each(positive)('%j', (text, expected) => {
    expect(extractPatterns(text)).toEqual(spans(expected));
  });

  it.each(negative)('none in %j', (text) => {
    expect(extractPatterns(text)[field]).toEqual([]);
  });
});

describe('measurements', () => {
  it.each<[string, Measurement[]]>([
    ['discharge pressure at 1175 psig', [m('1175', 'psig')]],
    ['1,175 psig and 2,250.5 psia', [m('1,175', 'psig'), m('2,250.5', 'psia')]],
    ['dP 12 psid, 15 psi', [m('12', 'psid'), m('15', 'psi')]],
    ['40% then 40 %', [m('40', '%', '40%'), m('40', '%')]],
    ['85 to 100 percent', [m('85 to 100', 'percent')]],
    // Scientific notation keeps its exponent; a multiple is a measurement.
    ['dose 1.5E-3 rem, 2e-4 mrem', [m('1.5E-3', 'rem'), m('2e-4', 'mrem')]],
    ['23 times above the normal limit', [m('23', 'times')]],
    ['6.2 mils (alarm setpoint 5.0 mils)', [m('6.2', 'mils'), m('5.0', 'mils')]],
    ['flow 100-120 gpm, 100–120 gpm, 100 to 120 gpm', [m('100-120', 'gpm'), m('100–120', 'gpm'), m('100 to 120', 'gpm')]],
    ['-5 °F, 550°F, 82 degF, 12 °C', [m('-5', '°F'), m('550', '°F', '550°F'), m('82', 'degF'), m('12', '°C')]],
    ['between -20 to -10 °C', [m('-20 to -10', '°C')]],
    ['±5 psig', [m('±5', 'psig')]],
    ['3.02 inHg, 2.5 in. Hg, 2.5 in Hg.', [m('3.02', 'inHg'), m('2.5', 'in. Hg'), m('2.5', 'in Hg')]],
    ['gap 0.015 in. and 4 inches', [m('0.015', 'in'), m('4', 'inches')]],
    ['5 A, 480V bus, 12.5 kV', [m('5', 'A'), m('480', 'V', '480V'), m('12.5', 'kV')]],
    ['3600 rpm, 0.3 in/s, 5 ips, 2.1 g', [m('3600', 'rpm'), m('0.3', 'in/s'), m('5', 'ips'), m('2.1', 'g')]],
    ['50 ft-lbs, 35 lbs, 500 gal, 10 mR/hr', [m('50', 'ft-lbs'), m('35', 'lbs'), m('500', 'gal'), m('10', 'mR/hr')]],
    ['1500 MWt, 60 Hz, 5 m, 150 SCFM, 142 ppb', [m('1500', 'MWt'), m('60', 'Hz'), m('5', 'm'), m('150', 'SCFM'), m('142', 'ppb')]],
    ['| PT-1102 | 1175 | psig | Within normal range |', [m('1175', 'psig', '1175 | psig')]],
    ['Row 4: Suction pressure | 92 | psig', [m('92', 'psig', '92 | psig')]],
    ['5 psig and 5 PSIG', [m('5', 'psig')]],
    ['ne pas dépasser 1\u00A0200 kPa', [m('1\u00A0200', 'kPa')]],
    // Compound forms: a hyphen between value and unit, fractions, spelled-out units.
    ['a 3/4-inch line, 2250-psia header, 1/2 inch gap', [m('3/4', 'inch', '3/4-inch'), m('2250', 'psia', '2250-psia'), m('1/2', 'inch')]],
    ['the 4160-volt bus and a 125-V battery, 208 Volts', [m('4160', 'volt', '4160-volt'), m('125', 'V', '125-V'), m('208', 'Volts')]],
    ['rose 15 degrees to 212 degrees Fahrenheit, 30 DEGREES F', [m('15', 'degrees'), m('212', 'degrees Fahrenheit'), m('30', 'DEGREES F')]],
    ['insulation read 2 megohms; contact 0.2 ohms', [m('2', 'megohms'), m('0.2', 'ohms')]],
    ['about three feet of pipe, a four-inch weld, twenty-five percent, half an inch', [
      m('three', 'feet'), m('four', 'inch', 'four-inch'), m('twenty-five', 'percent'), m('half an', 'inch'),
    ]],
    ['Eight Gallons spilled and 30 gallons more', [m('Eight', 'Gallons'), m('30', 'gallons')]],
  ])('%j', (text, expected) => {
    expect(extractPatterns(text).measurements).toEqual(expected);
  });

  it.each([
    'VB-101A peak',
    'FT-1102',
    'P-101A and MOV-204A',
    'stopped within 2 minutes, 48 hours later',
    'found 3 in the casing, 1 in 10, a 4 in pipe',
    'Train 1A and bus 2B',
    '12 F and 5 psi-rated and 5 psigx',
    '2026-02-06 and 1x/2x',
    'Step 4.2',
    'WO 12345678 gal',
    'x-5 psig',
    'x 5 | psig | and | 5 | psig and',
    'ne pas dépasser 1 200 kPa',
    // Page headers and list labels: "PAGE 3 of 18 A.", "2 g STEAM LINE BREAK", "Unit 1 A/B".
    'RESPONSE TO FIRE REV 4 PAGE 3 of 18 A. PURPOSE',
    '2 g STEAM LINE BREAK',
    'Unit 1 A/B',
    // A train and a phrase after a hyphen; number words without a unit; durations stay temporal.
    'the 2-A train and a 4-in pipe',
    'two pumps, one operator, three hours',
  ])('none in %j', (text) => {
    expect(extractPatterns(text).measurements).toEqual([]);
  });
});

describe('DESIGN §2 extractor defects stay fixed', () => {
  it.each<[string, string, Partial<PatternSpans>]>([
    ['1175 psig read as psi', 'discharge 1175 psig', { measurements: [m('1175', 'psig')] }],
    ['40% never matched', 'valve 40% open', { measurements: [m('40', '%', '40%')] }],
    ['VB-101A peak read as a measurement of −101 A', 'VB-101A peak', { equipment_ids: ['VB-101A'] }],
    ['P-101A read as "101a"', 'AFW Pump P-101A', { equipment_ids: ['P-101A'] }],
    [
      'doc-ref prefixes taken as equipment',
      'CR-2026-00123, WO-2026-04567, SOP-101, ECA-2026-0007',
      { doc_refs: ['CR-2026-00123', 'WO-2026-04567', 'SOP-101', 'ECA-2026-0007'] },
    ],
    ['WO-2026-04567 missed as a doc ref', 'Related Work Order planned: WO-2026-04567.', { doc_refs: ['WO-2026-04567'] }],
    ['ECA-2026-0007 also yielding ECA-2026', 'Related evaluation: ECA-2026-0007 (ifinitiated).', { doc_refs: ['ECA-2026-0007'] }],
    ['CR-2026-00123 also yielding CR-2026', 'CR ID | CR-2026-00123 |', { doc_refs: ['CR-2026-00123'] }],
    ['fm_ids never filled', 'mode FM_AIR_INLEAK confirmed', { fm_ids: ['FM_AIR_INLEAK'] }],
    ['underscores stripped from identifiers', 'FM_BEARING_WEAR_2 on CONDENSER_TRAIN_A', { fm_ids: ['FM_BEARING_WEAR_2'] }],
    [
      'nondeterministic ordering: lists follow the text',
      'PT-1102, FT-1102, P-101A; SOP-101 then CR-2026-00123; 92 psig then 6.2 mils',
      {
        equipment_ids: ['PT-1102', 'FT-1102', 'P-101A'],
        doc_refs: ['SOP-101', 'CR-2026-00123'],
        measurements: [m('92', 'psig'), m('6.2', 'mils')],
      },
    ],
  ])('%s', (_defect, text, expected) => {
    expect(extractPatterns(text)).toEqual(spans(expected));
  });

  it('gives the same output on every call, whatever ran before', () => {
    const first = CHUNK_TEXTS.map((text) => extractPatterns(text));
    const reversed = [...CHUNK_TEXTS].reverse().map((text) => extractPatterns(text)).reverse();
    expect(reversed).toEqual(first);
    expect(CHUNK_TEXTS.map((text) => extractPatterns(text))).toEqual(first);
  });
});

describe('overlap resolution by priority', () => {
  it.each<[string, string, Partial<PatternSpans>]>([
    ['alarm over equipment', 'PAS-1234-HI and 1-FW-LO-FLOW', { alarm_ids: ['PAS-1234-HI', '1-FW-LO-FLOW'] }],
    ['doc ref over measurement', 'WO 12345678 gal', { doc_refs: ['WO 12345678'] }],
    ['no date carved out of a longer token', 'CR-2026-02-06 and WO-2026-04567', { doc_refs: ['WO-2026-04567'] }],
    ['timestamp over equipment', '2026-02-06T03:22:00Z', { temporal_refs: ['2026-02-06T03:22:00Z'] }],
    ['duration is temporal, not a measurement', 'ran 48 hours at 1175 psig', { measurements: [m('1175', 'psig')], temporal_refs: ['48 hours'] }],
    [
      'every family side by side',
      'P-101A vibration 6.2 mils at 3600 rpm on 2026-02-06 per SOP-101 (CR-2026-00123), ALM-1234, FM_AIR_INLEAK',
      {
        equipment_ids: ['P-101A'],
        doc_refs: ['SOP-101', 'CR-2026-00123'],
        alarm_ids: ['ALM-1234'],
        measurements: [m('6.2', 'mils'), m('3600', 'rpm')],
        temporal_refs: ['2026-02-06'],
        fm_ids: ['FM_AIR_INLEAK'],
      },
    ],
  ])('%s', (_name, text, expected) => {
    expect(extractPatterns(text)).toEqual(spans(expected));
  });
});

describe('DACKAR records', () => {
  it('first chunk of ad61d26ecf6e gives the exact seed patterns', () => {
    expect(extractPatterns(String(CHUNKS[0]?.text))).toEqual({
      equipment_ids: ['P-101A', 'VB-101A', 'FT-1102', 'PT-1102'],
      doc_refs: ['CR-2026-00123'],
      alarm_ids: [],
      measurements: [
        m('6.2', 'mils', '6.2 | mils'),
        m('5.0', 'mils'),
        m('465', 'gpm', '465 | gpm'),
        m('1175', 'psig', '1175 | psig'),
        m('92', 'psig', '92 | psig'),
      ],
      temporal_refs: ['2026-02-06'],
      fm_ids: [],
    });
  });

  it('raw_text with padded table cells gives the same ids and values as text', () => {
    const record = CHUNKS[0] ?? {};
    const fromText = extractPatterns(String(record.text));
    const fromRaw = extractPatterns(String(record.raw_text));
    const valueUnit = (s: PatternSpans) => s.measurements.map(({ value, unit }) => [value, unit]);
    expect(valueUnit(fromRaw)).toEqual(valueUnit(fromText));
    expect({ ...fromRaw, measurements: [] }).toEqual({ ...fromText, measurements: [] });
  });

  it.each<[string, Partial<PatternSpans>]>([
    ['chunk:ad61d26ecf6e:sec3', { equipment_ids: ['P-101A'], temporal_refs: ['within 2 minutes'] }],
    [
      'chunk:ad61d26ecf6e:sec5',
      { doc_refs: ['CA-1', 'CA-2', 'CA-3', 'WO-2026-04567', 'ECA-2026-0007'], temporal_refs: ['2026-02-10', '2026-02-08', '2026-02-12'] },
    ],
  ])('%s', (chunkId, expected) => {
    const record = CHUNKS.find((r) => r.chunk_id === chunkId);
    expect(extractPatterns(String(record?.text))).toEqual(spans(expected));
  });

  it.each<[string, Partial<PatternSpans>]>([
    [
      'CR-2024-04821::symptom_description',
      {
        doc_refs: ['SOP-U2-CND-001'],
        measurements: [m('1.82', 'inHg'), m('3.02', 'inHg'), m('142', 'ppb'), m('23', 'times'), m('10', 'ppb')],
        temporal_refs: ['over 14 days', '03:22 UTC'],
      },
    ],
    [
      'CR-2024-04821::corrective_actions',
      { doc_refs: ['WO-2024-12001', 'PM-U2-CND-EXPJOINT-INSP-A', 'PM-U2-AIR-EJECTOR-SURV-Q'], temporal_refs: ['104 days', '12 days'] },
    ],
    [
      'CR-2024-04799::initial_assessment',
      { doc_refs: ['SOP-U2-CND-001'], measurements: [m('85 to 100', 'percent'), m('0.04', 'inHg')], temporal_refs: ['past 9 days'] },
    ],
    ['SOP-U2-CND-001::diagnosis_guidance', { equipment_ids: ['U2-AIT-0341'], measurements: [m('20', 'ppb')] }],
    ['WO-2024-11901::maintenance_scope', { measurements: [m('82', 'degF'), m('97.6', 'degF')], temporal_refs: ['60 days', 'over 10 days'] }],
  ])('scenario record %s', (chunkId, expected) => {
    const record = SCENARIO.find((r) => r.chunk_id === chunkId);
    expect(extractPatterns(String(record?.raw_text))).toEqual(spans(expected));
  });
});

describe('properties', () => {
  const fragment = fc.constantFrom(
    'P-101A', 'VB-101A', 'CR-2026-00123', 'WO 12345678', 'ECA-2026-0007', 'SOP-U2-CND-001', 'ALM-1234',
    'PAS-1234-HI', '1-FW-LO-FLOW', 'FM_AIR_INLEAK', '2026-02-06', '03:22', 'February 6, 2026', '1,175',
    '6.2', '40', '100-120', 'psig', 'psi', '%', 'mils', 'in', 'A', 'gpm', 'hours', 'within', '°F', ' ',
    ' ', '  ', '-', '_', '|', '.', ',', ':', '/', 'x', 'p', '\n', '–',
  );
  const text = fc.oneof(fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')), fc.string({ maxLength: 80 }));

  it('every item is a span of the text, every list is present and free of duplicates', () => {
    fc.assert(
      fc.property(text, (input) => {
        const result = extractPatterns(input);
        expect(Object.keys(result).sort()).toEqual(Object.keys(EMPTY).sort());
        for (const field of ['equipment_ids', 'doc_refs', 'alarm_ids', 'temporal_refs', 'fm_ids'] as const) {
          const items = result[field];
          for (const item of items) expect(input).toContain(item);
          expect(new Set(items.map((item) => item.toLowerCase())).size).toBe(items.length);
        }
        for (const { value, unit, text: span } of result.measurements) {
          expect(input).toContain(span);
          expect(span.startsWith(value) && span.endsWith(unit)).toBe(true);
        }
        expect(new Set(result.measurements.map((x) => x.text.toLowerCase())).size).toBe(result.measurements.length);
      }),
      { numRuns: 500 },
    );
  });

  it('no two families share a span of the text', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(' ')), (input) => {
        const result = extractPatterns(input);
        const all = [
          ...result.doc_refs,
          ...result.alarm_ids,
          ...result.fm_ids,
          ...result.equipment_ids,
          ...result.temporal_refs,
          ...result.measurements.map((x) => x.text),
        ];
        // With single-space joins each span is found at its first occurrence; two families
        // claiming one span would show up as an identical or overlapping item.
        const claimed = new Set<string>();
        for (const item of all) {
          expect(claimed.has(item.toLowerCase())).toBe(false);
          claimed.add(item.toLowerCase());
        }
      }),
      { numRuns: 300 },
    );
  });
});

// Timing is measured in bench/ (tag-parts.mjs for the chunk texts, pathological-inputs.mjs for
// these inputs at two sizes); here each must finish and keep what it finds bounded.
describe('hostile inputs', () => {
  it('gives the same spans on every one of 5,000 passes over the DACKAR chunk texts', () => {
    const first = JSON.stringify(CHUNK_TEXTS.map((chunk) => extractPatterns(chunk)));
    let same = 0;
    for (let pass = 0; pass < 5000; pass += 1) if (JSON.stringify(CHUNK_TEXTS.map((chunk) => extractPatterns(chunk))) === first) same++;
    expect(same).toBe(5000);
  });

  it.each([
    ['digits and spaces', '1 '.repeat(100_000)],
    ['hyphenated single letters', 'A-'.repeat(100_000)],
    ['a number and a long blank run', `5${' '.repeat(200_000)}x`],
    ['repeated tags', 'P-101A '.repeat(30_000)],
    ['comma-grouped digits', '1,'.repeat(100_000)],
    ['one endless failure-mode id', `FM${'_A'.repeat(100_000)}a`],
    ['rejected year-less dates', 'may 5 '.repeat(30_000)],
    ['table cells', '| 1 | '.repeat(50_000)],
    ['digit-hyphen chain', `${'1-'.repeat(100_000)}x`],
  ])('finishes on %s', (_name, input) => {
    const spans = extractPatterns(input);
    for (const list of Object.values(spans)) expect(Array.isArray(list) ? list.length : 0).toBeLessThanOrEqual(input.length);
  });
});
