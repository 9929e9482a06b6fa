import { describe, expect, it } from 'vitest';
import { splitUnits } from '../../src/views/extractive.js';
import { isFormText, isGarbled } from '../../src/views/form-text.js';

// Sentences written for these tests in the shape of NRC forms and OCR pages, not copied from any set.
describe('form text the extractive views skip', () => {
  it('takes a form\'s paperwork-burden notice and the EIIS code legend for form text', () => {
    expect(isFormText('Send comments regarding burden estimate to the Records Branch, Washington, DC 20555.')).toBe(true);
    expect(isFormText('The NRC may not conduct or sponsor the information collection unless it displays a currently valid OMB control number.')).toBe(true);
    expect(isFormText('Energy Industry Identification System (EIIS) codes appear in brackets as [XX].')).toBe(true);
    // An LER sentence that carries EIIS codes inline reports the event.
    expect(isFormText('The service water [BI] strainer [STR] clogged with debris.')).toBe(false);
  });

  it('takes a list of people and their titles for form text, not a sentence that names one', () => {
    expect(isFormText('R. T. Jones, Plant Manager S. K. Lee, Maintenance Supervisor')).toBe(true);
    expect(isFormText('K. Moore, Operations Superintendent The inspectors also spoke with other staff.')).toBe(true);
    expect(isFormText('The licensee (J. Smith, Plant Manager) said the pump tripped.')).toBe(false);
  });

  it('takes a listing of part numbers for form text, not a sentence about a part', () => {
    expect(isFormText('Subject: Model 40 governor, part numbers 1234567, 1234568 and 1234570.')).toBe(true);
    expect(isFormText('Relay coil assembly P/N 55-1012 Emergency Diesel Generator 1A - starting circuit')).toBe(true);
    expect(isFormText('The licensee replaced the relay with part number 55-1013.')).toBe(false);
    expect(isFormText('The relay, P/N 55-1012, was found with a cracked coil.')).toBe(false);
  });

  it('takes a line whose words OCR broke for noise, but not ids, units, names or accents', () => {
    expect(isGarbled('qRESULTSof REPCRT Inspcct.ion for the dicsel gencrator vaIve ~Rp4 tcst')).toBe(true);
    expect(isGarbled('Unit 2 at FitzPatrick and McGuire: 1-FCV-62-93 read 3.2 mmHg and 97 degF; FM_AIR_INLEAK, e.g. P-101A.')).toBe(false);
    expect(isGarbled('CAUTION: température ≤ 60 °C; ne pas dépasser 1 200 kPa, see www.nrc.gov or info@nrc.gov.')).toBe(false);
  });

  it('gives no unit (so no view item) from such a sentence', () => {
    const text = 'Send comments regarding burden estimate to the Records Branch.\n\nThe pump tripped on low suction pressure.';
    expect(splitUnits(text).map((u) => u.text)).toEqual(['The pump tripped on low suction pressure.']);
  });
});
