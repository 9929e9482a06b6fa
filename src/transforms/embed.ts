import { isPlainObject } from '../contracts/json.js';
import { CONFIG_ERRORS } from '../generation/config.js';
import type { ModelError } from '../llm/model-client.js';
import { connect, Embedder, openCache, type Connected } from '../retrieval/embedder.js';
import { EMBED_OPTIONS, OPENAI_DEFAULT_MAX_INPUT_TOKENS, resolveEmbedConfig, type EmbedConfig } from '../retrieval/embed-config.js';
import { charsFor, estimateTokens, isUnit, meanVector, splitText } from '../retrieval/embed-pieces.js';
import { asUsage } from '../runtime/exit-codes.js';
import { AppendedJson, defineStage, RawJson, type JsonObject, type Outcome, type Processor, type RecordMeta } from '../runtime/stage.js';
import { chunkTextOf } from '../tagging/chunk-fields.js';

export default defineStage({
  name: 'embed',
  summary: 'add the embedding vector of each chunk or section record (Ollama /api/embed, or an OpenAI-compatible /v1/embeddings)',
  description: `Reads chunk records (best after rca-summarize --combined) or section records (after
rca-summarize --view section_summary), embeds one text of each (--text) with an embedding model,
and adds:
  embedding  {backend, model, digest, dims, normalized, prefix, input: {field, chars, pieces},
             vector, error}; error is null, or {code, message} with vector null when the text
             could not be embedded (the exit status is then 1; a run over the output tries again)
--text combined embeds a chunk's embedding_text.combined (rca-flatten --combined, rca-summarize
--combined) and a section's embedding_text.section_summary; text embeds the record's own text;
a view's name embeds embedding_text.<view>. A record without that text is refused
(NO_EMBEDDING_TEXT); --prefix goes before every text and is recorded.
Texts are sent --batch at a time, --concurrency requests in flight (per host), in input order;
connection errors, timeouts, 429 and 5xx are retried with backoff, a busy server (503) narrows
the requests in flight, and a server that fails everything for --give-up-after seconds stops the
run (exit 3). Vectors are kept in the response cache (--cache) by model, digest, options and
text: a re-run sends nothing for them. The connection is made with the first record, so an empty
input needs no server.
No input is ever cut. Ollama is sent truncate: false (it would cut silently) and llama-server
refuses inputs over its physical batch: a text estimated above --max-input-tokens is split at
word boundaries into pieces whose vectors are averaged (--long split, the default; the record
says how many pieces) or refused (--long refuse: error INPUT_TOO_LONG); a piece the server still
refuses is halved and sent again.
A record that already carries a vector of this model, text and prefix passes through untouched
(unless --overwrite). A record whose embedding field is not rca-embed's is refused (FIELD_IN_USE).`,
  examples: [
    'rca-embed --model nomic-embed-text --prefix "search_document: " summarized.jsonl > embedded.jsonl',
    'rca-embed --backend openai --base-url http://localhost:8080/v1 --model all-MiniLM-L6-v2 --text text summarized.jsonl > embedded.jsonl',
    'rca-embed --text section_summary section-summaries.jsonl > sections.embedded.jsonl',
    'rca-embed embedded.jsonl > retried.jsonl      # embeds only the records that failed',
  ],
  options: EMBED_OPTIONS,
  create(options, setup) {
    const config = asUsage(() => resolveEmbedConfig(options, setup.env), CONFIG_ERRORS);
    return new EmbedStage(config);
  },
});

interface Chosen {
  field: string;
  text: string;
}

/** The text --text names, or why the record has none. */
function chosenText(record: JsonObject, which: EmbedConfig['text']): Chosen | { reject: { code: string; message: string } } {
  const section = record.kind === 'section';
  if (which === 'text') {
    const text = section ? (typeof record.text === 'string' ? record.text : undefined) : chunkTextOf(record);
    return text === undefined || text.trim() === '' ? { reject: { code: 'NO_EMBEDDING_TEXT', message: 'the record has no text to embed' } } : { field: 'text', text };
  }
  const key = which === 'combined' ? (section ? 'section_summary' : 'combined') : which;
  const texts = record.embedding_text;
  const text = isPlainObject(texts) ? texts[key] : undefined;
  if (typeof text !== 'string' || text.trim() === '') {
    const how = key === 'section_summary' ? 'rca-summarize --view section_summary' : key === 'combined' ? 'rca-summarize --combined, or rca-flatten --combined' : 'rca-summarize';
    return { reject: { code: 'NO_EMBEDDING_TEXT', message: `the record has no embedding_text.${key} (${how} writes it; --text text embeds the record's own text)` } };
  }
  return { field: `embedding_text.${key}`, text };
}

interface Leaf {
  vector: number[];
  chars: number;
}

// A piece the server refuses is halved this many times at most before the record fails.
const MAX_HALVINGS = 8;

class EmbedStage implements Processor {
  readonly window: number;
  private seq = 0;
  private connection: Promise<{ embedder: Embedder; connected: Connected; maxTokens: number }> | null = null;
  private embedder: Embedder | null = null;
  private notices: string[] = [];
  private fatalSaid = false;
  private dims: number | null = null;
  private readonly counts = { records: 0, embedded: 0, failed: 0, passedThrough: 0, split: 0, halved: 0 };

  constructor(private readonly config: EmbedConfig) {
    // Enough records in progress to fill a batch for every request in flight, four times over.
    this.window = config.window ?? 4 * config.batch * Math.max(1, config.hosts.reduce((n, h) => n + h.slots, 0) || config.concurrency) + 8;
  }

  process(record: JsonObject, meta: RecordMeta): Outcome | Promise<Outcome> {
    const chosen = chosenText(record, this.config.text);
    if ('reject' in chosen) return chosen;
    const existing = record.embedding;
    if (existing !== undefined && existing !== null) {
      if (!isPlainObject(existing) || typeof existing.model !== 'string' || !('vector' in existing)) return { reject: { code: 'FIELD_IN_USE', message: 'the record has an embedding field that rca-embed did not write; rename it to keep it' } };
      const input = isPlainObject(existing.input) ? existing.input : {};
      const same = existing.model === this.config.model && input.field === chosen.field && existing.prefix === this.config.prefix;
      if (same && Array.isArray(existing.vector) && !this.config.overwrite) {
        this.counts.passedThrough++;
        return { records: [new RawJson(meta.raw)] };
      }
    }
    return this.embedRecord(record, meta, chosen, this.seq++);
  }

  private connect() {
    this.connection ??= (async () => {
      const now = () => performance.now();
      const connected = await connect(this.config, this.config.model, now);
      const cache = await openCache(this.config);
      const embedder = new Embedder(this.config, { model: this.config.model, dimensions: this.config.dimensions, numCtx: this.config.numCtx, batch: this.config.batch }, connected, cache, now);
      this.embedder = embedder;
      this.notices.push(...connected.notices);
      return { embedder, connected, maxTokens: this.maxTokens(connected) };
    })();
    return this.connection;
  }

  private maxTokens(connected: Connected): number {
    if (this.config.maxInputTokens !== null) return this.config.maxInputTokens;
    if (this.config.backend === 'openai') return OPENAI_DEFAULT_MAX_INPUT_TOKENS;
    // Ollama holds an input to the model's context, or num_ctx when lower (routes.go EmbedHandler).
    const context = connected.info.contextLength ?? OPENAI_DEFAULT_MAX_INPUT_TOKENS;
    return this.config.numCtx === null ? context : Math.min(context, this.config.numCtx);
  }

  private async embedRecord(record: JsonObject, meta: RecordMeta, chosen: Chosen, seq: number): Promise<Outcome> {
    let run;
    try {
      run = await this.connect();
    } catch (err) {
      if (this.fatalSaid) return {};
      this.fatalSaid = true;
      return { fatal: err instanceof Error ? err.message : String(err) };
    }
    const { embedder, connected } = run;
    const { prefix } = this.config;
    const room = run.maxTokens - estimateTokens(prefix);
    let pieces = [chosen.text];
    let error: { code: string; message: string } | null = null;
    if (estimateTokens(prefix + chosen.text) > run.maxTokens) {
      if (this.config.long === 'refuse' || room < 1) error = { code: 'INPUT_TOO_LONG', message: `the text (${chosen.text.length} characters, about ${estimateTokens(chosen.text)} tokens) is longer than --max-input-tokens ${run.maxTokens}` };
      else pieces = splitText(chosen.text, charsFor(room));
    }
    let leaves: Leaf[] = [];
    if (error === null) {
      try {
        leaves = (await Promise.all(pieces.map((p) => this.leaves(embedder, p, seq, 0)))).flat();
      } catch (err) {
        const e = err as ModelError;
        error = { code: e.code ?? 'BAD_RESPONSE', message: e.message };
      }
    }
    const reason = embedder.control.reason;
    if (error !== null && reason !== null) {
      // A casualty of the stop, not an answer: the record is left unwritten.
      if (reason.kind === 'fatal' && !this.fatalSaid) {
        this.fatalSaid = true;
        return { fatal: `${reason.message}; the records before ${meta.source}:${meta.line} were written` };
      }
      return {};
    }
    const warnings = [...this.notices.splice(0)];
    const cacheWarning = embedder.takeCacheWarning();
    if (cacheWarning !== null) warnings.push(cacheWarning);
    const vector = error === null ? (leaves.length === 1 ? leaves[0]!.vector : meanVector(leaves.map((l) => l.vector), leaves.map((l) => l.chars))) : null;
    if (vector !== null) {
      if (this.dims === null && this.config.dimensions !== null && vector.length !== this.config.dimensions) warnings.push(`asked for ${this.config.dimensions} dimensions, the model answers ${vector.length} (it cannot cut its vectors; the records say dims ${vector.length})`);
      this.dims ??= vector.length;
    }
    const embedding = {
      backend: this.config.backend,
      model: this.config.model,
      digest: connected.info.digest,
      dims: vector?.length ?? null,
      normalized: vector === null ? null : isUnit(vector),
      prefix,
      input: { field: chosen.field, chars: chosen.text.length, pieces: leaves.length || pieces.length },
      vector,
      error,
    };
    this.counts.records++;
    if (leaves.length > 1) this.counts.split++;
    if (error !== null) {
      this.counts.failed++;
      warnings.push(`not embedded: ${error.code}: ${error.message}`);
    } else this.counts.embedded++;
    const member = `"embedding":${JSON.stringify(embedding)}`;
    const out = 'embedding' in record ? { ...record, embedding } : new AppendedJson(meta.raw, member, meta.bytes);
    return { records: [out], failed: error !== null, warnings };
  }

  // A piece's vectors: one, or those of its halves when the server refuses it as too long.
  private async leaves(embedder: Embedder, piece: string, seq: number, halvings: number): Promise<Leaf[]> {
    try {
      return [{ vector: await embedder.embed(this.config.prefix + piece, seq), chars: piece.length }];
    } catch (err) {
      const e = err as ModelError;
      if (e.code !== 'PROMPT_TOO_LONG' || this.config.long === 'refuse' || halvings >= MAX_HALVINGS || piece.length < 2) throw err;
      this.counts.halved++;
      const halves = splitText(piece, Math.ceil(piece.length / 2));
      return (await Promise.all(halves.map((h) => this.leaves(embedder, h, seq, halvings + 1)))).flat();
    }
  }

  interrupt(): void {
    this.embedder?.interrupt();
  }

  summary(): string[] {
    const s = this.embedder?.stats;
    const lines = [...this.notices.splice(0)];
    lines.push(`${this.counts.records} records embedded: ${this.counts.embedded} ok, ${this.counts.failed} failed, ${this.counts.passedThrough} already embedded passed through; ${this.counts.split} split into pieces`);
    if (s !== undefined) lines.push(`${s.inputs} texts in ${s.requests} ${s.requests === 1 ? 'request' : 'requests'} (${s.cached} from the cache), ${s.transportRetries} transport retries, ${s.promptTokens} tokens counted by the server`);
    return lines;
  }

  stats(): Record<string, unknown> {
    const s = this.embedder?.stats;
    return { backend: this.config.backend, host: this.config.host, model: this.config.model, batch: this.config.batch, window: this.window, records: this.counts, ...(s ? { requests: s } : {}), dims: this.dims };
  }

  progress(): string {
    return `${this.counts.embedded} embedded, ${this.counts.failed} failed`;
  }
}
