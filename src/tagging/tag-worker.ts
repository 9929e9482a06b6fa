// Entry of the worker threads of `rca-tag --jobs N`: tags the blocks of input bytes it is given
// (in memory shared with the main thread) and hands back finished output bytes.
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockTagger, tagJob, transferList, type BlockJob, type WorkerSetup } from './tag-batch.js';

const port = parentPort;
if (port !== null) {
  const { setup, slots } = workerData as WorkerSetup;
  const tagBlock = createBlockTagger(setup);
  port.on('message', (job: BlockJob) => {
    const reply = tagJob(tagBlock, slots, job);
    port.postMessage(reply, transferList(reply.tagged));
  });
}
