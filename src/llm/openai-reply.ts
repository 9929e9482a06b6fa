// What an OpenAI-compatible server sends back: a reply streamed as server-sent events or sent
// whole, its token counts, the error bodies of the servers this targets, and the model list.
import type { GenerateReply } from './model-client.js';
import { countOrNull, parseJson, withDefaultTag } from './reply-values.js';

export interface ChatChunk {
  choices?: { delta?: ChatPiece; message?: ChatPiece; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | null;
  /** llama-server's own counts (server_slot_stats::to_json): cache_n prompt tokens reused, prompt_n evaluated. */
  timings?: { cache_n?: unknown; prompt_n?: unknown } | null;
}

// llama-server and vLLM send a reasoning model's thinking as reasoning_content (some servers: reasoning).
interface ChatPiece {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

export class ReplyAccumulator {
  content = '';
  private thinkingChars = 0;
  finishReason: string | null = null;
  private promptTokens: number | null = null;
  private cachedTokens: number | null = null;
  private timingsCached: number | null = null;
  private outputTokens: number | null = null;

  // Returns whether the object looked like a completion (had choices or usage).
  add(chunk: ChatChunk, field: 'delta' | 'message'): boolean {
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    const part = choice?.[field];
    const piece: unknown = part?.content;
    if (typeof piece === 'string') this.content += piece;
    const thought: unknown = part?.reasoning_content ?? part?.reasoning;
    if (typeof thought === 'string') this.thinkingChars += thought.length;
    if (typeof choice?.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const usage = chunk.usage;
    if (usage !== null && typeof usage === 'object') {
      this.promptTokens = countOrNull(usage.prompt_tokens) ?? this.promptTokens;
      this.outputTokens = countOrNull(usage.completion_tokens) ?? this.outputTokens;
      // vLLM (with --enable-prompt-tokens-details) and llama-server (server-task.cpp,
      // usage_json_oaicompat: n_prompt_tokens_cache) say how many prompt tokens came from the cache.
      const details = usage.prompt_tokens_details;
      if (details !== null && typeof details === 'object') this.cachedTokens = countOrNull(details.cached_tokens) ?? this.cachedTokens;
    }
    // llama-server's timings, on every streamed chunk and the final one: the cache's share where usage has none.
    const timings = chunk.timings;
    if (timings !== null && typeof timings === 'object' && this.cachedTokens === null) {
      const cached = countOrNull(timings.cache_n);
      if (cached !== null && countOrNull(timings.prompt_n) !== null) this.timingsCached = cached;
    }
    return choice !== undefined || (usage !== null && typeof usage === 'object');
  }

  // finish_reason is the OpenAI spelling of Ollama's done_reason: "stop" and "length" read alike.
  result(): GenerateReply {
    return {
      content: this.content,
      doneReason: this.finishReason,
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens ?? this.timingsCached,
      outputTokens: this.outputTokens,
      thinkingChars: this.thinkingChars,
    };
  }
}

// Server-sent events, line by line: `data:` lines accumulate until a blank line ends the event;
// `event:` names it; lines starting with `:` are comments (keep-alives). Scanning resumes where the
// previous chunk stopped, so the work stays linear in the reply however the bytes arrive.
export class SseLineReader {
  private buffer = '';
  private scanFrom = 0;
  private data: string[] = [];
  private event = '';
  count = 0;

  constructor(private readonly maxLineChars: number) {}

  // Returns false when one line outgrows the cap (a server streaming garbage without newlines).
  push(text: string, onEvent: (data: string, event: string) => void): boolean {
    this.buffer += text;
    let start = 0;
    for (;;) {
      const newline = this.buffer.indexOf('\n', this.scanFrom);
      if (newline < 0) break;
      const end = newline > start && this.buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(this.buffer.slice(start, end), onEvent);
      start = newline + 1;
      this.scanFrom = start;
    }
    if (start > 0) this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.length;
    return this.buffer.length <= this.maxLineChars;
  }

  // A body that ends without the final blank line still delivers its last event.
  end(onEvent: (data: string, event: string) => void): void {
    if (this.buffer !== '') this.line(this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer, onEvent);
    this.buffer = '';
    this.scanFrom = 0;
    this.dispatch(onEvent);
  }

  private line(line: string, onEvent: (data: string, event: string) => void): void {
    if (line === '') {
      this.dispatch(onEvent);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  private dispatch(onEvent: (data: string, event: string) => void): void {
    if (this.data.length === 0) {
      this.event = '';
      return;
    }
    const data = this.data.join('\n');
    const event = this.event;
    this.data = [];
    this.event = '';
    this.count += 1;
    onEvent(data, event);
  }
}

// OpenAI, vLLM, llama.cpp and Ollama send {"error": {"message"}}, older vLLM {"object": "error",
// "message"}, TGI {"error": "…"}, FastAPI {"detail"}; anything else is quoted as text.
export function errorText(body: string): string {
  const parsed = parseJson(body);
  return streamedErrorText(parsed) ?? messageOf(parsed) ?? (body.trim() === '' ? 'no details' : body);
}

export function streamedErrorText(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const record = value as { error?: unknown; object?: unknown };
  if (record.error !== undefined && record.error !== null) return messageOf(record.error) ?? JSON.stringify(record.error);
  if (record.object === 'error') return messageOf(value) ?? 'error';
  return null;
}

function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return null;
  const { message, detail } = value as { message?: unknown; detail?: unknown };
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return null;
}

export async function readCapped(response: Response, maxChars: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      await reader.cancel().catch(() => {});
      return text.slice(0, maxChars);
    }
  }
}

export function listedModels(value: unknown): string[] | null {
  if (value === null || typeof value !== 'object') return null;
  const data = (value as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  const ids: string[] = [];
  for (const entry of data) {
    const id: unknown = entry !== null && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined;
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}

// Exact first; then Ollama's reading of a name without a tag (mistral → mistral:latest), which its
// /v1/models lists with the tag.
export function findListedModel(listed: readonly string[], wanted: string): string | undefined {
  if (listed.includes(wanted)) return wanted;
  const target = withDefaultTag(wanted);
  return listed.find((id) => withDefaultTag(id) === target);
}
