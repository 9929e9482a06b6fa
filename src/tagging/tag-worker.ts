// Entry of the worker threads of `rca-tag --jobs N`: tags the batches of raw lines it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import { createBatchTagger, type TagBatch, type TagBatchReply, type TagSetup } from './tag-batch.js';

const port = parentPort;
if (port !== null) {
  const tagBatch = createBatchTagger(workerData as TagSetup);
  port.on('message', (batch: TagBatch) => {
    const reply: TagBatchReply = { id: batch.id, tagged: tagBatch(batch.lines) };
    port.postMessage(reply);
  });
}
