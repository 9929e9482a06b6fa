// A tag worker with scripted faults, for the failure tests of `rca-tag --jobs N`: the real block
// tagger (compiled), except that a record containing THROW_IN_RECORD makes the tagger throw,
// EXIT_WORKER in a block makes the worker thread exit, and THROW_IN_WORKER throws out of the handler.
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockTagger, transferList } from '../../../dist/tagging/tag-batch.js';
import { Tagger } from '../../../dist/tagging/tagger.js';

const process_ = Tagger.prototype.process;
Tagger.prototype.process = function (record, meta) {
  if (meta.raw.includes('THROW_IN_RECORD')) throw new Error('record blew up\n    at somewhere');
  return process_.call(this, record, meta);
};
const tagBlock = createBlockTagger(workerData);
parentPort.on('message', (job) => {
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.length).toString('latin1');
  if (text.includes('EXIT_WORKER')) process.exit(7);
  if (text.includes('THROW_IN_WORKER')) throw new Error('worker blew up');
  const tagged = tagBlock(job);
  parentPort.postMessage({ id: job.id, tagged }, transferList(tagged));
});
