// --max-depth, declared once: tag and count-sections must fold section paths at the same depth,
// so they share the option (each says in its own help which other stage to keep in step with).
import type { OptionSpec } from '../runtime/stage.js';
import { DEFAULT_MAX_DEPTH } from './chunk-fields.js';

export function maxDepthOption(help: string) {
  return { type: 'number', placeholder: 'N', default: DEFAULT_MAX_DEPTH, min: 1, integer: true, help } as const satisfies OptionSpec;
}
