// Builds every run-time pattern of src/ (the lazy ones by using them once), with the built-in
// lists, and returns what src/runtime/patterns.ts recorded.
import { builtPatterns, type BuiltPattern } from '../../src/runtime/patterns.js';
import { detectDocType } from '../../src/tagging/doc-type.js';
import { extractPatterns } from '../../src/tagging/extractors.js';
import { negationScopes } from '../../src/tagging/negation.js';
import { sectionRole } from '../../src/tagging/section-role.js';
import { DOC_TYPES } from '../../src/contracts/vocabulary.js';

export function allBuiltPatterns(): BuiltPattern[] {
  extractPatterns('CR-2026-00123 at 5 psig on 6 Feb 2026, 10 CFR 50.59');
  detectDocType({ docName: 'nothing to see', text: 'nothing to see' });
  for (const docType of DOC_TYPES) sectionRole(docType, 'Purpose');
  negationScopes('no leakage was found');
  return builtPatterns();
}
