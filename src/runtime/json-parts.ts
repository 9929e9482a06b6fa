import { LARGE_STRING_CHARS, type JsonObject } from './stage.js';

const PIECE_CHARS = 1 << 16;

/**
 * The text of JSON.stringify(rec), in pieces. For a record holding a string of many megabytes,
 * JSON.stringify builds the line as a rope and writing it makes one more flat copy: about three
 * times the record at once. Here each top-level field is serialised on its own and a large string
 * 64 Ki characters at a time (never between the halves of a surrogate pair, which JSON.stringify
 * would escape), so what is held is one piece.
 */
export function* jsonParts(rec: JsonObject): Generator<string> {
  let comma = '';
  yield '{';
  for (const key of Object.keys(rec)) {
    const value = rec[key];
    if (typeof value === 'string' && value.length >= LARGE_STRING_CHARS) {
      yield `${comma}${JSON.stringify(key)}:"`;
      for (let from = 0; from < value.length; ) {
        let to = Math.min(value.length, from + PIECE_CHARS);
        const before = value.charCodeAt(to - 1);
        if (to < value.length && before >= 0xd800 && before <= 0xdbff) to--;
        yield JSON.stringify(value.slice(from, to)).slice(1, -1);
        from = to;
      }
      yield '"';
    } else {
      // undefined, a function or a symbol: left out, as JSON.stringify leaves them out.
      const json = JSON.stringify(value) as string | undefined;
      if (json === undefined) continue;
      yield `${comma}${JSON.stringify(key)}:${json}`;
    }
    comma = ',';
  }
  yield '}';
}
