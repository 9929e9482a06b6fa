// The baseline every streaming stage is compared with: a plain Node JSONL loop that parses each
// line and writes it back (readline + JSON.parse + JSON.stringify, batched writes, drain honoured).
import { createInterface } from 'node:readline';

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
let batch = [];
for await (const line of rl) {
  if (!line) continue;
  batch.push(JSON.stringify(JSON.parse(line)));
  if (batch.length >= 256) {
    if (!process.stdout.write(batch.join('\n') + '\n')) await new Promise((r) => process.stdout.once('drain', r));
    batch = [];
  }
}
if (batch.length) process.stdout.write(batch.join('\n') + '\n');
