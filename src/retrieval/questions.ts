// Labelled question files (test/fixtures/retrieval/README.md): one question a line with its split
// and the chunk ids that answer it. Each file is a set, named after the file.
import { basename } from 'node:path';
import { isPlainObject } from '../contracts/json.js';

export const SPLITS = ['dev', 'test'] as const;
export type Split = (typeof SPLITS)[number];

export interface Question {
  id: string;
  split: Split;
  question: string;
  gold: string[];
  /** 'synthetic': generated from validated fields, reported apart from the written questions. */
  kind: 'written' | 'synthetic';
}

export interface QuestionSet {
  name: string;
  questions: Question[];
  /** One line each: `FILE:LINE: what is wrong`. */
  problems: string[];
}

const SUFFIX = /(?:\.questions)?\.jsonl$/;

export function setName(path: string): string {
  return basename(path).replace(SUFFIX, '');
}

export function parseQuestions(path: string, text: string): QuestionSet {
  const questions: Question[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${path}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`${where}: not JSON`);
      return;
    }
    if (!isPlainObject(value)) return void problems.push(`${where}: not a JSON object`);
    const { id, split, question, gold, kind } = value;
    if (typeof id !== 'string' || id === '') return void problems.push(`${where}: no id`);
    if (ids.has(id)) return void problems.push(`${where}: id ${id} is given twice`);
    if (split !== 'dev' && split !== 'test') return void problems.push(`${where}: ${id}: split must be dev or test`);
    if (typeof question !== 'string' || question.trim() === '') return void problems.push(`${where}: ${id}: no question`);
    if (!Array.isArray(gold) || gold.length === 0 || !gold.every((g) => typeof g === 'string')) return void problems.push(`${where}: ${id}: gold must list the chunk ids that answer it`);
    if (kind !== undefined && kind !== 'synthetic') return void problems.push(`${where}: ${id}: kind is synthetic or absent`);
    ids.add(id);
    questions.push({ id, split, question, gold: gold as string[], kind: kind === 'synthetic' ? 'synthetic' : 'written' });
  });
  return { name: setName(path), questions, problems };
}
