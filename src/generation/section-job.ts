// A section_summary job as the ladder and the backends see it: the section, the summaries of its
// children (--bottom-up), and what its replies are grounded in. The hooks below are what differs
// from a chunk view: the prompt, the JSON Schema sent as `format`, the reply check and the name
// of the text in feedback. Model backends reach them through attemptPrompt and generateRequest
// (requests.ts), the ladder through checkReply; everything else is shared with the chunk views.
import { checkerFor, jsonSchemaFor } from '../contracts/runtime.js';
import type { JsonSchema } from '../contracts/json.js';
import type { JsonObject } from '../runtime/stage.js';
import type { ViewEvidence } from '../views/evidence.js';
import { buildSectionPrompt, sectionSourceName } from '../views/section-prompt.js';
import { validateSectionSummary, type SectionSources } from '../views/section-validate.js';
import { SECTION_VIEW, type ChildSummary, type SectionInput, type SectionView } from '../views/section-view.js';
import type { AttemptInput } from './backend.js';
import { boundedFormat } from './format-bounds.js';
import type { AttemptPrompt } from './requests.js';

export interface SectionJob {
  view: SectionView;
  section: SectionInput;
  /** The children's summaries shown in the prompt, in input order ([] without --bottom-up). */
  children: readonly ChildSummary[];
  /** The section's own text: what --max-chars and the ladder's third attempt cut. */
  text: string;
  sources: SectionSources;
  /** Input position: earlier records go first when requests wait for a slot. */
  seq: number;
}

export function isSectionJob(job: { view: string }): job is SectionJob {
  return job.view === SECTION_VIEW;
}

export function sectionAttemptPrompt(job: SectionJob, input: AttemptInput): AttemptPrompt {
  const built = buildSectionPrompt(job.section, job.children, { maxChars: input.maxChars, ...(input.maxChildChars === undefined ? {} : { maxChildChars: input.maxChildChars }) });
  const prompt = input.feedback === null ? built.prompt : `${input.feedback}\n\n${built.prompt}`;
  return { prompt, textCut: built.truncated, childrenCut: built.childrenCut };
}

let format: JsonSchema | null = null;
/** The section_summary JSON Schema with its grammar bounds (format-bounds.ts), one object for the whole run. */
export function sectionFormat(): JsonSchema {
  format ??= boundedFormat(SECTION_VIEW, jsonSchemaFor(SECTION_VIEW));
  return format;
}

/** A recovered reply checked as the chunk views' replies are: stamped, flagged, and held to its contract. */
export function checkSectionReply(job: SectionJob, value: JsonObject): { view: JsonObject; flags: string[]; fixed: string[]; evidence: ViewEvidence; withinContract: boolean } {
  const checked = validateSectionSummary(value, job.section, job.sources);
  return { view: checked.view, flags: checked.flags, fixed: checked.fixed, evidence: checked.evidence, withinContract: checkerFor(SECTION_VIEW)(checked.view) === null };
}

/** How feedback names the text a section's reply must come from. */
export function sectionFeedbackSource(job: SectionJob): string {
  return sectionSourceName(job.children.length > 0);
}
