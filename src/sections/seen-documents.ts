// The documents --sorted input has already closed, so one that re-appears is caught (its sections
// would otherwise be written twice). A corpus has millions of documents: instead of a set of their
// ids (~50 bytes of heap each, with the set's entry), each is kept as a 64-bit fingerprint (the
// first 8 bytes of the SHA-256 of its id) in an open-addressing table of 32-bit words, 16 bytes
// a document at most. Two different ids share a fingerprint with a chance of about n² / 2^65 for
// n documents (10^-8 at a million): the price of not holding every id.
import { sha256Bytes } from '../runtime/sha256.js';

const INITIAL_SLOTS = 1024;

export class SeenDocuments {
  /** Fingerprints as [hi, lo] pairs; [0, 0] is an empty slot. */
  private table = new Uint32Array(2 * INITIAL_SLOTS);
  private slots = INITIAL_SLOTS;
  private count = 0;

  /** The number of documents added. */
  get size(): number {
    return this.count;
  }

  has(docId: string): boolean {
    const [hi, lo] = fingerprint(docId);
    return this.slotOf(hi, lo) < 0;
  }

  add(docId: string): void {
    const [hi, lo] = fingerprint(docId);
    const slot = this.slotOf(hi, lo);
    if (slot < 0) return;
    this.table[2 * slot] = hi;
    this.table[2 * slot + 1] = lo;
    // At most half full: probes stay short.
    if (++this.count * 2 > this.slots) this.grow();
  }

  /** The empty slot where the fingerprint goes, or -1 when it is there already. */
  private slotOf(hi: number, lo: number): number {
    const mask = this.slots - 1;
    for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
      const h = this.table[2 * slot]!;
      const l = this.table[2 * slot + 1]!;
      if (h === 0 && l === 0) return slot;
      if (h === hi && l === lo) return -1;
    }
  }

  private grow(): void {
    const old = this.table;
    this.slots *= 2;
    this.table = new Uint32Array(2 * this.slots);
    for (let i = 0; i < old.length; i += 2) {
      const hi = old[i]!;
      const lo = old[i + 1]!;
      if (hi !== 0 || lo !== 0) {
        const slot = this.slotOf(hi, lo);
        this.table[2 * slot] = hi;
        this.table[2 * slot + 1] = lo;
      }
    }
  }
}

function fingerprint(docId: string): [number, number] {
  const digest = sha256Bytes(docId);
  const hi = digest.readUInt32BE(0);
  const lo = digest.readUInt32BE(4);
  // [0, 0] marks an empty slot.
  return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
}
