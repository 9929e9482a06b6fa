// A person's question as an FTS5 query (pure): its words, less the words every question has, each
// quoted (so nothing in the question is read as FTS5 syntax), joined with OR, so that BM25 ranks
// a chunk by how many of the words it holds and how rare they are. A word joined by - _ . or /
// (P-101A, 1x/2x, SOP-AFW-012) is one phrase: its parts must stand together.

// Letters and digits, with inner joiners; no nested quantifier can match the same text two ways.
const WORD = /[\p{L}\p{N}]+(?:[-_./][\p{L}\p{N}]+)*/gu;
const PART = /[\p{L}\p{N}]+/gu;

// Function words and the words of asking: in nearly every question, in no answer's favour.
const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its ' +
    'itself just me more most my no nor not now of off on once only or other our ours out over own same she should so some such than ' +
    'that the their theirs them then there these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours also get got go going gone let may might must need shall us ' +
    'anyone anything someone something many much ever yet still s t d ll re ve m ' +
    'didn doesn don isn wasn weren aren couldn wouldn shouldn hasn haven hadn won can'
  ).split(' '),
);

export interface QueryTerms {
  /** The words and phrases searched for, lowercased, in question order, each once. */
  terms: string[];
  /** The FTS5 expression: `"a" OR "b c"`; "" when no word is left. */
  match: string;
}

export function queryTerms(question: string): QueryTerms {
  const terms: string[] = [];
  for (const [word] of question.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const parts = word.match(PART) ?? [];
    if (parts.length === 1 && STOPWORDS.has(word)) continue;
    const term = parts.join(' ');
    if (!terms.includes(term)) terms.push(term);
  }
  return { terms, match: terms.map((t) => `"${t}"`).join(' OR ') };
}
