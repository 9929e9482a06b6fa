import { describe, expect, it } from 'vitest';
import { extractPatterns } from '../../src/tagging/extractors.js';
import { plainDesignators } from '../../src/tagging/extractors/designators.js';

// Equipment as event reports write it without a hyphenated tag, and the numbers that look like
// tags but are not equipment (constructed text of the general shapes).
const plain = (text: string): string[] => plainDesignators(text).map((d) => d.text);

describe('plain equipment designators', () => {
  it.each<[string, string, string[]]>([
    ['a noun and its number', 'DG 2A tripped; Bus 3C and TR 4 were lost; EDG #2 started; Feeder X12 opened.', ['DG 2A', 'Bus 3C', 'TR 4', 'EDG #2', 'Feeder X12']],
    ['a list after one noun', 'the 4160V Buses 1A and/or 1B and 2C', ['Buses 1A', '1B', '2C']],
    ['a quoted train letter before the name', "the 'B' RHR pump and the \"A\" component cooling water (CCW) heat exchanger", ["'B' RHR pump", '"A" component cooling water (CCW) heat exchanger']],
    ['two designators joined', "The 'A' through 'C' EDGs and the 'A' and 'B' CS pumps", ["'A' through 'C' EDGs", "'A' and 'B' CS pumps"]],
    ['a unit/train number and "No."', 'the 1B emergency diesel generator and the No. 21 charging pump', ['1B emergency diesel generator', 'No. 21 charging pump']],
    ['a name wrapped over two lines', 'for the 2B\nEmergency Diesel Generator', ['2B Emergency Diesel Generator']],
    ['a designator before no equipment name', "the 'A' train was declared inoperable; 2A reactor protection system", []],
    ['a noun with no number', 'the bus was deenergized and the pump 2026 schedule', []],
    ['a division or train before the name', 'the Division 1 diesel generator, Division II switchgear and Train B RHR pump', ['Division 1 diesel generator', 'Division II switchgear', 'Train B RHR pump']],
    ['a two-digit unit and train number before a singular name', 'the 21 charging pump and the 23 Emergency Diesel Generator', ['21 charging pump', '23 Emergency Diesel Generator']],
    ['a count or a quantity before a name is none', 'all 23 pumps, a 12 inch valve, 1,215 pump starts and page E5-18 16', []],
    ['more nouns, written in lower case too', 'RCP 1A, SG 2, transformer 1X, 4160V bus 1D and penetration N2E', ['RCP 1A', 'SG 2', 'transformer 1X', 'bus 1D', 'penetration N2E']],
    ['a swing train of two letters', 'the 1AB emergency diesel generator was started', ['1AB emergency diesel generator']],
    ['the name runs to its last head', 'the 2B Reactor Coolant Drain Tank Pump (RCDTP) tripped and the 1A diesel generator room fan ran', ['2B Reactor Coolant Drain Tank Pump (RCDTP)', '1A diesel generator room fan']],
    ['a plant acronym as the name', "the 2A MFP and the 'C' RFP tripped, the B\nOTSG was drained", ['2A MFP', "'C' RFP", 'B OTSG']],
    ['an acronym the text defines for equipment', "the Heater Drain Pump (HDP) was stopped; later the 1B HDP and the 'A' HDPs ran", ['1B HDP', "'A' HDPs"]],
    ['a quoted train letter after the name', "operators started Circulating Water Pump 'B', then the pump \u2018A\u2019", ["Circulating Water Pump 'B'", 'pump \u2018A\u2019']],
    ['OCR stars for the quotes, and an acronym defined with its letter', 'the trip of Condensate Pump *B* (CDP *B*) with CDP *a* out of service', ['Condensate Pump *B*', 'CDP *B*', 'CDP *a*']],
    ['a channel before the name', 'the Unit 3 channel D excore detector and Channel B detectors', ['channel D excore detector', 'Channel B detectors']],
    ['a train letter hyphened to the acronym, with its number', 'the A-EDG No. 2 cylinder and the C-EDG were run', ['A-EDG No. 2', 'C-EDG']],
    ['no head, no designator', "Unit 2 in Mode 1, Region 2 of Table 1 and Figure A. A pump tripped. Step B was done. 'A' was 'B'. the A train, the C-RHR leak, A-1 step", []],
  ])('%s', (_name, text, expected) => {
    expect(plain(text)).toEqual(expected);
  });
});

describe('numbers that look like tags are not equipment', () => {
  it.each<[string, string]>([
    ['reactor types', 'RX TYPE: [1] GE-4, [2] W-4-LP'],
    ['part and model numbers', 'model number 1-234-C-56 and Pt No N12-345 and P/N 77-123A'],
    ['a letter number', 'letter U-603912 dated'],
    ['OCR of a regulation', 'report 1 OCFR21-0012 and NIJREG-0612'],
    ['EIIS codes', 'the SGs [EIIS-AB-SG]'],
    ['pages of lettered parts', 'List of Effective Pages E3-1 14 E5-18 16'],
  ])('%s', (_name, text) => {
    expect(extractPatterns(text).equipment_ids).toEqual([]);
  });

  it('keeps hyphenated tags and plain designators in text order', () => {
    expect(extractPatterns('Bus 3C fed P-101A and MCC 2B.').equipment_ids).toEqual(['Bus 3C', 'P-101A', 'MCC 2B']);
  });
});
