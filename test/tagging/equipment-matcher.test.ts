import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { equipmentAtByRegex, equipmentIds } from '../../src/tagging/extractors/identifiers.js';

// The equipment family reads EQUIPMENT_RE by hand and applies isEquipmentId's rules on counts
// taken in the same pass. These hold it to the regex and isEquipmentId on the sliced match
// (equipmentAtByRegex) at every position of generated texts: same span, same item, same rejects.

function allPositions(text: string): void {
  for (let start = 0; start <= text.length; start++) {
    const expected = equipmentAtByRegex(text, start);
    const actual = equipmentIds.at(text, start);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) expect({ text, start, actual }).toEqual({ text, start, actual: expected });
  }
}

const oneOf = (...xs: string[]) => fc.constantFrom(...xs);
const segment = oneOf('P', 'AFW', 'VB', 'MOV', 'FT', 'CR', 'PM', 'FM', 'CA', 'ABCDEF', 'A', 'B', 'U2', 'CND', 'HI', 'LO', '1', '12', '101', '101A',
  '1102', '2026', '02', '1A', '2A', '8801A', '1SI', '2RCS', '1RCSXY', '2RCSXYZ', 'PT455', 'I', 'XE', '131', '133', 'H', '3', 'CO', '60', 'a', 'p', 'x1', '');
const joiner = oneOf('-', '-', '-', '*', '--', '.', ':', '_', '/', ' ', '');
const edge = oneOf('', ' ', '.', '-', ':', ':5', '.5', '.a', '-a', '-A', '_', 'a', 'A', '1', ',', '(', ')', '/B', '*', 'é', '\u0130', '\n');
const shaped = fc
  .array(fc.tuple(edge, fc.array(fc.tuple(segment, joiner), { minLength: 1, maxLength: 5 }), edge), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([a, segs, b]) => a + segs.map(([s, j]) => s + j).join('') + b).join(''));

describe('equipment ids: the hand matcher reads EQUIPMENT_RE and isEquipmentId', () => {
  it('gives the regex and isEquipmentId at every position of tag-shaped texts', () => {
    fc.assert(fc.property(shaped, (t) => allPositions(t)), { numRuns: 5000 });
  });

  it('gives them on texts of random characters from the shape alphabet', () => {
    const alphabet = fc.constantFrom(...'0123456789ABCPRSXZ-*._: a/é'.split(''));
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 30 }).map((c) => c.join('')), (t) => allPositions(t)), { numRuns: 4000 });
  });

  it('gives them on fixed cases and long runs', () => {
    for (const t of [
      'P-101A, AFW-P-101, 1-RC-P-1A, U2-CND-HOTWELL, P-101, P-2A, A-1, B-2, A-14, 1SI-8801A, 2RCS*PT455, 12-34A, CA-1, I-131, XE-133',
      'CR-2026, PM-U2-CND-EXPJOINT-INSP-A, NUREG-0800, 2026-02-06, 100-120, HI-HI, P-101A.5, P-101A:5, P-101A:x, P-101A_1, P-101a',
      '2RCSXYZ*PT455 2*X 2R*X 2R** 2R*-X 2R*X-1-2*Y .P-101 -P-101 xP-101 P-101-a P-101- P--101',
      'AB-'.repeat(300) + '1', 'A'.repeat(400) + '-1', '2ABCDE*' + 'X-'.repeat(200) + '9',
    ]) allPositions(t);
  });
});
