export const SEED_FIELDS: readonly string[];
export const KIND_DOC_TYPE: Readonly<Record<string, string>>;
export const LABEL_ROLES: Readonly<Record<string, readonly string[]>>;
export function readRealtextSet(dir: string): Array<{ part: string; chunks: Array<Record<string, unknown>>; labels: Array<Record<string, unknown>> }>;
export function checkRealtextSet(dir: string): {
  errors: string[];
  chunks: number;
  documents: Map<string, { kind: string; split: 'dev' | 'test'; chunks: number }>;
};
