// The fake Ollama as a process of its own on loopback, for the Slurm tier: the array's tasks are
// other processes (started by slurmd), so the server cannot live in the test's process. Answers
// with the scripted model (views built from the chunk's own text, so they pass validation), after
// --latency-ms, and appends one line per generation request to --log once it ends: its chunk and
// view, whether the reply reached the client (false: the client left, e.g. a task stopped by
// SIGTERM), and whether it was made to fail (the tier counts requests per chunk and view there). While the file named by --fail-while exists, requests for a chunk
// whose id contains --fail-doc get a 400 (a view that fails: how the tier makes one shard fail).
// Prints its URL on stdout once listening (on --port, else any free port); stops on SIGTERM. The
// tier also starts it inside a task, as the job template starts a model server (MODEL_SERVER_CMD).
import { appendFileSync, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startFakeOllama } from '../support/fake-ollama.js';
import { parsePrompt, scriptedModel } from '../generation/support/scripted-model.js';

const { values } = parseArgs({
  options: {
    log: { type: 'string' },
    'latency-ms': { type: 'string', default: '0' },
    'fail-doc': { type: 'string' },
    'fail-while': { type: 'string' },
    port: { type: 'string', default: '0' },
  },
});
if (!values.log) {
  console.error('usage: fake-model-server --log FILE [--latency-ms N] [--fail-doc ID --fail-while FILE] [--port N]');
  process.exit(2);
}
const log = values.log;
const model = scriptedModel();
const failed = new Map<number, boolean>();
const server = await startFakeOllama({
  port: Number(values.port),
  latencyMs: Number(values['latency-ms']),
  slots: 8,
  respond(req) {
    const prompt = parsePrompt(req.body, req.requestId);
    const failing = values['fail-doc'] !== undefined && values['fail-while'] !== undefined && prompt.chunkId.includes(values['fail-doc']) && existsSync(values['fail-while']);
    failed.set(req.index, failing);
    if (failing) return { fault: 'error400' };
    return model.respond(req);
  },
  onReplied(req, delivered) {
    const prompt = parsePrompt(req.body, req.requestId);
    appendFileSync(log, `${JSON.stringify({ chunk: prompt.chunkId, view: prompt.view, delivered, failed: failed.get(req.index) ?? false })}\n`);
    failed.delete(req.index);
  },
});
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
