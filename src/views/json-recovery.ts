// Turns a model reply into one JSON object, or says in one line why it cannot.
// Rules (DESIGN.md §3): a reply that parses must be an object (an array is not mined for one);
// otherwise the first '{' from which a complete object decodes wins; code fences are unwrapped.

export type JsonRecovery = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

// ```json … ``` (or ``` … ```) around the whole reply.
const FENCED_RE = /^```[\w-]*[ \t]*\r?\n([^]*?)\r?\n?```$/;
const PREVIEW_CHARS = 60;
// Each attempt scans to the matching brace; a reply of thousands of stray '{' must not go quadratic.
const MAX_ATTEMPTS = 1000;

export function recoverJson(reply: string): JsonRecovery {
  let text = reply.trim();
  if (text === '') return fail('empty reply');
  const fenced = FENCED_RE.exec(text);
  if (fenced) {
    text = fenced[1]!.trim();
    if (text === '') return fail('empty code block');
  }
  const whole = tryParse(text);
  if (whole.parsed) {
    return isObject(whole.value) ? { ok: true, value: whole.value } : fail(`reply is JSON ${kindOf(whole.value)}, not an object`);
  }
  let attempts = 0;
  for (let at = text.indexOf('{'); at >= 0 && attempts < MAX_ATTEMPTS; at = text.indexOf('{', at + 1), attempts++) {
    const end = matchingBrace(text, at);
    if (end < 0) continue;
    const candidate = tryParse(text.slice(at, end + 1));
    if (candidate.parsed && isObject(candidate.value)) return { ok: true, value: candidate.value };
  }
  const gaveUp = attempts >= MAX_ATTEMPTS ? ` (gave up after ${MAX_ATTEMPTS} '{')` : '';
  return fail(`no JSON object found in reply${gaveUp} ${preview(text)}`);
}

/** Index of the '}' closing the object opened at `start`, skipping strings; -1 if it never closes. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return i;
  }
  return -1;
}

function tryParse(text: string): { parsed: true; value: unknown } | { parsed: false } {
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return typeof value === 'boolean' ? `${value}` : typeof value;
}

function preview(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return JSON.stringify(one.length > PREVIEW_CHARS ? `${one.slice(0, PREVIEW_CHARS)}…` : one);
}

function fail(error: string): JsonRecovery {
  return { ok: false, error };
}
