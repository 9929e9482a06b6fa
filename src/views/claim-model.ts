// The optional model-based claim check (rca-validate --check-claims MODEL): each claim of a view
// is put to a model, with the source text, as a yes/no question of support, through the same
// model clients generation uses (a small fact-checking model served by Ollama, for instance).
// Off by default; the answer is recorded on the item's evidence (`model_check`), and an item the
// model says the text does not support adds model_unsupported:<field>[<index>] to the view's flags.
import type { ModelClient } from '../llm/model-client.js';
import { ModelError } from '../llm/model-client.js';
import type { ItemEvidence } from './evidence.js';

export interface ModelCheck {
  model: string;
  /** The model's answer; null when it could not be had (see error). */
  supported: boolean | null;
  error: string | null;
}

const FORMAT = {
  type: 'object',
  properties: { supported: { type: 'boolean' } },
  required: ['supported'],
} as const;
// Enough of the source for a claim check, short enough for a small model's window.
const MAX_SOURCE_CHARS = 6000;

export function claimPrompt(source: string, claim: string): string {
  return `Does the SOURCE state the CLAIM (or something that implies it)? Answer with one JSON object {"supported": true} or {"supported": false}.
A claim the source contradicts, negates or does not mention is not supported.

SOURCE:
${source.length > MAX_SOURCE_CHARS ? source.slice(0, MAX_SOURCE_CHARS) : source}

CLAIM: ${claim}
`;
}

export class ClaimChecker {
  constructor(
    private readonly client: ModelClient,
    readonly model: string,
    private readonly timeoutMs = 60_000,
  ) {}

  async check(source: string, claim: string, signal?: AbortSignal): Promise<ModelCheck> {
    try {
      const reply = await this.client.generate(
        {
          model: this.model,
          prompt: claimPrompt(source, claim),
          format: FORMAT as unknown as Record<string, unknown>,
          options: { temperature: 0, seed: 0, num_predict: 32, num_ctx: 4096 },
          keepAlive: '5m',
          // A yes/no answer in 32 tokens: a thinking model must not reason first.
          think: false,
          timeoutMs: this.timeoutMs,
        },
        signal,
      );
      const parsed: unknown = JSON.parse(reply.content);
      const supported = parsed !== null && typeof parsed === 'object' ? (parsed as { supported?: unknown }).supported : undefined;
      if (typeof supported !== 'boolean') return { model: this.model, supported: null, error: 'REPLY_INVALID' };
      return { model: this.model, supported, error: null };
    } catch (err) {
      if (err instanceof ModelError) return { model: this.model, supported: null, error: err.code };
      if (err instanceof SyntaxError) return { model: this.model, supported: null, error: 'REPLY_NOT_JSON' };
      throw err;
    }
  }

  /** Checks the claims of a view's evidence, one at a time; returns the flags of the unsupported ones. */
  async checkItems(source: string, items: (ItemEvidence & { model_check?: ModelCheck })[], valueOf: (item: ItemEvidence) => string, signal?: AbortSignal): Promise<string[]> {
    const flags: string[] = [];
    for (const item of items) {
      if (item.role !== 'claim' && item.role !== 'summary') continue;
      const result = await this.check(source, valueOf(item), signal);
      item.model_check = result;
      if (result.supported === false) {
        const flag = `model_unsupported:${item.field}[${item.index}]`;
        item.checks.push(flag);
        flags.push(flag);
      }
    }
    return flags;
  }
}
