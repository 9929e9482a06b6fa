// What a batch of raw lines becomes in `rca-tag --jobs N`, on a worker thread or on the main
// thread when it has time to spare: each line comes back as the JSON of its fields (context,
// section id, NER seed, flags) or a reject. The context depends on the document's doc type, which
// only the main thread can decide (from the document's first chunk, which another batch may have
// had): each line says which type its context assumed and carries what the decision reads, and
// the main thread redoes the context in the rare case the types differ.

import type { DocType } from '../contracts/vocabulary.js';
import { parseRecordLine } from '../runtime/record-line.js';
import { ContextBuilder, type ContextOptions } from './context.js';
import { buildGazetteer } from './gazetteer.js';
import { buildKeywordLists } from './keyword-lists.js';
import type { LexiconEntry } from './lexicon.js';
import { nerSeedJson, stringArrayJson } from './seed-json.js';
import {
  addDocTypeEvidence,
  contextFieldsJson,
  docTypeDependsOnHistory,
  hasAddedKeys,
  NerSeeder,
  sameNamedDocument,
  type DocTypeEvidenceFields,
} from './tag-record.js';

/** Everything a tagging thread needs, plain data (it crosses to worker threads). */
export interface TagSetup {
  lexicon: LexiconEntry[];
  keywordFiles: Parameters<typeof buildKeywordLists>[0];
  context: ContextOptions;
}

export interface TagBatch {
  id: number;
  lines: string[];
}

// Per-line status bits.
export const TAGGED = 1;
export const REJECTED = 2;
/** The line made the tagger throw: the main thread reports it as the in-process path would. */
export const FAILED = 4;
/** The record has fields of ours already: the main thread rebuilds it. */
export const REBUILD = 8;
/** The doc type depends on earlier records: the evidence columns hold what decides it. */
export const HISTORY = 16;

/**
 * A batch's results, column by column (index = line in the batch): columns of strings cross
 * threads far more cheaply than an object per line.
 */
export interface TaggedBatch {
  status: number[];
  /** TAGGED: the doc type `context` was built for. */
  docType: DocType[];
  /** TAGGED: `"context":…,"section_id":…`. */
  context: string[];
  nerSeed: string[];
  tagFlags: string[];
  /** REJECTED: the reject; FAILED: the error message. */
  rejectCode: string[];
  message: string[];
  /** HISTORY: what ContextBuilder reads to decide the doc type (text only when it may be needed). */
  docId: (string | undefined)[];
  docTypeField: (string | undefined)[];
  docName: (string | undefined)[];
  sourcePath: (string | undefined)[];
  text: (string | undefined)[];
}

export interface TagBatchReply {
  id: number;
  tagged: TaggedBatch;
}

/** Builds the matchers once (the costly part of start-up) and returns the batch tagger. */
export function createBatchTagger(setup: TagSetup): (lines: readonly string[]) => TaggedBatch {
  const seeder = new NerSeeder(buildGazetteer(setup.lexicon), buildKeywordLists(setup.keywordFiles));
  // This tagger's own doc-type decisions: right unless the document began in an earlier batch.
  const contexts = new ContextBuilder(setup.context);

  return (lines) => {
    const out: TaggedBatch = {
      status: [], docType: [], context: [], nerSeed: [], tagFlags: [], rejectCode: [], message: [],
      docId: [], docTypeField: [], docName: [], sourcePath: [], text: [],
    };
    // A batch is consecutive input lines: a line naming the same document as the previous one
    // whose type depended on history finds its type decided, and needs no text to decide it.
    let previous: DocTypeEvidenceFields | null = null;
    for (const line of lines) {
      let status = 0;
      let docType: DocType = 'OTHER';
      let context = '';
      let nerSeed = '';
      let tagFlags = '';
      let rejectCode = '';
      let message = '';
      let evidence: DocTypeEvidenceFields = {};
      const parsed = parseRecordLine(line);
      if (parsed.reject) {
        status = REJECTED;
        rejectCode = parsed.reject.code;
        message = parsed.reject.message;
      } else {
        const record = parsed.record;
        try {
          const facts = contexts.build(record);
          docType = facts.context.doc_type;
          context = contextFieldsJson(facts);
          nerSeed = nerSeedJson(seeder.seed(facts.text));
          tagFlags = stringArrayJson(facts.flags);
          status = TAGGED | (hasAddedKeys(record) ? REBUILD : 0);
          if (docTypeDependsOnHistory(record, setup.context)) {
            status |= HISTORY;
            addDocTypeEvidence(evidence, record, false);
            if (previous === null || !sameNamedDocument(previous, evidence)) addDocTypeEvidence(evidence, record, true);
            previous = evidence;
          }
        } catch (err) {
          status = FAILED;
          message = err instanceof Error ? err.message : String(err);
          evidence = {};
        }
      }
      out.status.push(status);
      out.docType.push(docType);
      out.context.push(context);
      out.nerSeed.push(nerSeed);
      out.tagFlags.push(tagFlags);
      out.rejectCode.push(rejectCode);
      out.message.push(message);
      out.docId.push(evidence.doc_id);
      out.docTypeField.push(evidence.doc_type);
      out.docName.push(evidence.doc_name);
      out.sourcePath.push(evidence.source_path);
      out.text.push(evidence.text);
    }
    return out;
  };
}
