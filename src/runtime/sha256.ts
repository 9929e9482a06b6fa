// SHA-256 of a string's UTF-8 bytes, for every layer that names things by a digest (section ids,
// cache keys, the fingerprints of documents seen). node:crypto (17 built-in modules) is loaded on
// the first hash, not at start-up.
import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';

let nodeCrypto: typeof Crypto | null = null;
const cryptoModule = (): typeof Crypto => (nodeCrypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto);

/** The hex digest. One-shot crypto.hash (Node 20.12 and later) is about twice as fast as a Hash object. */
export function sha256Hex(text: string): string {
  const crypto = cryptoModule();
  return typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The digest's 32 bytes. */
export function sha256Bytes(text: string): Buffer {
  return cryptoModule().createHash('sha256').update(text, 'utf8').digest();
}
