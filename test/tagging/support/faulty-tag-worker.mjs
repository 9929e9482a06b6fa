// A tag worker with scripted faults, for the failure tests of `rca-tag --jobs N`: the real block
// tagger (compiled), except that a record containing THROW_IN_RECORD makes the tagger throw,
// EXIT_WORKER in a block makes the worker thread exit, and THROW_IN_WORKER throws out of the handler.
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockTagger, tagJob, transferList } from '../../../dist/tagging/tag-batch.js';
import { Tagger } from '../../../dist/tagging/tagger.js';

const process_ = Tagger.prototype.process;
Tagger.prototype.process = function (record, meta) {
  if (meta.raw.includes('THROW_IN_RECORD')) throw new Error('record blew up\n    at somewhere');
  return process_.call(this, record, meta);
};
const { setup, slots } = workerData;
const tagBlock = createBlockTagger(setup);
parentPort.on('message', (job) => {
  const bytes = job.slot >= 0 ? new Uint8Array(slots[job.slot].input, 0, job.length) : job.bytes;
  const text = Buffer.from(bytes).toString('latin1');
  if (text.includes('EXIT_WORKER')) process.exit(7);
  if (text.includes('THROW_IN_WORKER')) throw new Error('worker blew up');
  const reply = tagJob(tagBlock, slots, job);
  parentPort.postMessage(reply, transferList(reply.tagged));
});
