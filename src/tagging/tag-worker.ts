// Entry of the worker threads of `rca-tag --jobs N`: tags the blocks of input bytes it is sent and
// hands back finished output bytes (the byte arrays move between threads, they are not copied).
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockTagger, transferList, type BlockJob, type BlockReply, type TagSetup } from './tag-batch.js';

const port = parentPort;
if (port !== null) {
  const tagBlock = createBlockTagger(workerData as TagSetup);
  port.on('message', (job: BlockJob) => {
    const reply: BlockReply = { id: job.id, tagged: tagBlock(job) };
    port.postMessage(reply, transferList(reply.tagged));
  });
}
