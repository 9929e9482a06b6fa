// A tag worker with scripted faults, for the failure tests of `rca-tag --jobs N`: the real batch
// tagger (compiled), except that a line containing THROW_IN_RECORD comes back as a per-record
// error, EXIT_WORKER makes the worker thread exit, and THROW_IN_WORKER throws out of the handler.
import { parentPort, workerData } from 'node:worker_threads';
import { createBatchTagger, FAILED } from '../../../dist/tagging/tag-batch.js';

const tagBatch = createBatchTagger(workerData);
parentPort.on('message', (batch) => {
  if (batch.lines.some((line) => line.includes('EXIT_WORKER'))) process.exit(7);
  if (batch.lines.some((line) => line.includes('THROW_IN_WORKER'))) throw new Error('worker blew up');
  const tagged = tagBatch(batch.lines);
  batch.lines.forEach((line, i) => {
    if (!line.includes('THROW_IN_RECORD')) return;
    tagged.status[i] = FAILED;
    tagged.message[i] = 'record blew up\n    at somewhere';
  });
  parentPort.postMessage({ id: batch.id, tagged });
});
