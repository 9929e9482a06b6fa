// `node --import bench/wasm-probe/preload.mjs bin/rca-tag …`: rca-tag with the probe's wasm
// tokenizer and phrase-list scan in place of NerSeeder's own (same output; for measuring only).
import { NerSeeder } from '../../dist/tagging/tag-record.js';
import { TokenBuffer } from '../../dist/tagging/phrase-matcher.js';
import { wasmNer } from './core.mjs';

let probe = null;
const seed = NerSeeder.prototype.seed;
NerSeeder.prototype.seed = function (text) {
  if (this.wasmProbe !== true) {
    // The seeder's gazetteer and keyword lists give the phrase lists its own matcher was built from.
    probe ??= wasmNer(TokenBuffer, this.gazetteer, this.keywords);
    this.tokens = new probe.WasmTokens();
    this.matcher = probe.wasmScan;
    this.wasmProbe = true;
  }
  return seed.call(this, text);
};
