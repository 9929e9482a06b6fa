import type { JsonObject } from '../../src/runtime/stage.js';
import type { SectionRecord } from '../../src/sections/section-tree.js';
import { SectionCounter } from '../../src/transforms/count-sections.js';

export interface CountRun {
  sections: SectionRecord[];
  /** The stop message and the 1-based record that caused it, when the run stopped. */
  stop: { line: number; message: string } | null;
  summary: string[];
}

/**
 * Drives the stage's processor the way the runner does: process each record, finish unless stopped.
 * `unsorted: true` is the stage's default (any order); without it the run is --sorted.
 */
export function countSections(
  records: readonly JsonObject[],
  options: { unsorted?: boolean; maxTextChars?: number; maxDepth?: number; spillAfterBytes?: number } = {},
): CountRun {
  const counter = new SectionCounter({
    sorted: !(options.unsorted ?? false),
    maxTextChars: options.maxTextChars ?? 20_000,
    maxDepth: options.maxDepth,
    spillAfterBytes: options.spillAfterBytes,
  });
  const sections: SectionRecord[] = [];
  try {
    for (const [i, record] of records.entries()) {
      const outcome = counter.process(record);
      sections.push(...((outcome.records ?? []) as SectionRecord[]));
      if (outcome.fatal) return { sections, stop: { line: i + 1, message: outcome.fatal }, summary: counter.summary() };
    }
    const end = counter.finish();
    sections.push(...((end.records ?? []) as SectionRecord[]), ...((end.stream ?? []) as Iterable<SectionRecord>));
    return { sections, stop: null, summary: counter.summary() };
  } finally {
    counter.close();
  }
}

export function chunk(docId: string, chunkId: string, path: string | undefined, extra: JsonObject = {}): JsonObject {
  return { chunk_id: chunkId, doc_id: docId, ...(path === undefined ? {} : { section_path: path }), text: `text of ${chunkId}`, ...extra };
}

/** Checks the tree invariants; returns the problems found (empty when the output is consistent). */
export function treeProblems(sections: readonly SectionRecord[], chunksPerDoc: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const byId = new Map<string, { node: SectionRecord; at: number }>();
  for (const [at, node] of sections.entries()) {
    const key = `${node.doc_id}\u0000${node.section_id}`;
    if (byId.has(key)) problems.push(`duplicate section ${node.section_path}`);
    byId.set(key, { node, at });
  }
  const childTotals = new Map<string, { total: number; count: number }>();
  const rootTotals = new Map<string, number>();
  for (const [at, node] of sections.entries()) {
    if (node.level !== node.segments.length) problems.push(`${node.section_path}: level ${node.level}`);
    if (node.chunk_ids.length > node.direct_count) problems.push(`${node.section_path}: more ids than chunks`);
    if (node.parent_id === null) {
      rootTotals.set(node.doc_id, (rootTotals.get(node.doc_id) ?? 0) + node.total_count);
      continue;
    }
    const parent = byId.get(`${node.doc_id}\u0000${node.parent_id}`);
    if (!parent) problems.push(`${node.section_path}: parent not emitted`);
    else {
      if (parent.at < at) problems.push(`${node.section_path}: parent emitted before its child`);
      if (parent.node.section_path !== node.parent_path) problems.push(`${node.section_path}: parent_path`);
      if (JSON.stringify(parent.node.segments) !== JSON.stringify(node.segments.slice(0, -1))) problems.push(`${node.section_path}: parent segments`);
      if (!contains(parent.node.page_start, parent.node.page_end, node.page_start, node.page_end)) problems.push(`${node.section_path}: page range outside its parent's`);
      if (!contains(parent.node.first_order, parent.node.last_order, node.first_order, node.last_order)) problems.push(`${node.section_path}: order range outside its parent's`);
    }
    const sum = childTotals.get(`${node.doc_id}\u0000${node.parent_id}`) ?? { total: 0, count: 0 };
    sum.total += node.total_count;
    sum.count++;
    childTotals.set(`${node.doc_id}\u0000${node.parent_id}`, sum);
  }
  for (const [key, { node }] of byId) {
    const sum = childTotals.get(key) ?? { total: 0, count: 0 };
    if (node.total_count !== node.direct_count + sum.total) problems.push(`${node.section_path}: total ${node.total_count} ≠ ${node.direct_count} + ${sum.total}`);
    if (node.child_count !== sum.count) problems.push(`${node.section_path}: child_count ${node.child_count} ≠ ${sum.count}`);
  }
  for (const [doc, n] of chunksPerDoc) {
    if ((rootTotals.get(doc) ?? 0) !== n) problems.push(`document ${doc}: roots total ${rootTotals.get(doc) ?? 0} ≠ ${n} chunks`);
  }
  return problems;
}

function contains(lo: number | null, hi: number | null, innerLo: number | null, innerHi: number | null): boolean {
  if (innerLo !== null && (lo === null || innerLo < lo)) return false;
  if (innerHi !== null && (hi === null || innerHi > hi)) return false;
  return true;
}

export function chunksPerDocument(records: readonly JsonObject[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    const doc = typeof r.doc_id === 'string' ? r.doc_id : '';
    counts.set(doc, (counts.get(doc) ?? 0) + 1);
  }
  return counts;
}
