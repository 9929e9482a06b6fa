// Tagged chunk records for generate tests: synthetic condition-report chunks run through the real
// tag stage, so every record carries the context, NER seed and text generate reads.
import tagStage from '../../../src/transforms/tag.js';
import { runInProcess } from '../../support/run-in-process.js';

const SYMPTOMS = ['high vibration', 'seal leakage', 'low discharge pressure', 'bearing overheating', 'motor trip'];

export function chunk(i: number): Record<string, unknown> {
  const doc = `cr${i % 3}`;
  return {
    chunk_id: `chunk:${doc}:sec${i}`,
    doc_id: doc,
    doc_type: 'CR',
    doc_name: `CR-2026-0${100 + (i % 3)}.pdf`,
    section_path: `Condition Report > Description ${i}`,
    text:
      `Pump P-${100 + i}A of the auxiliary feedwater system showed ${SYMPTOMS[i % SYMPTOMS.length]} during the monthly test. ` +
      `Vibration reached ${i % 9}.${i % 7} mils against an alert limit of 5.0 mils. Operators started the standby pump and wrote this report.`,
  };
}

export function chunkLines(n: number, from = 0): string {
  return Array.from({ length: n }, (_, k) => JSON.stringify(chunk(from + k))).join('\n') + '\n';
}

/** `n` tagged records as JSONL (one line each). */
export async function taggedLines(n: number, from = 0): Promise<string> {
  const r = await runInProcess(tagStage, [chunkLines(n, from)]);
  if (r.code !== 0) throw new Error(`tag failed: ${r.stderr}`);
  return r.stdout;
}

export function parseLines(text: string): Record<string, any>[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}
