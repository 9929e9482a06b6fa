// The NER seed of a large record's text, made on the run's worker thread (runtime/off-thread.ts):
// the part of tagging that grows with the text. The context, the doc type decided in input order
// and the flag counts stay with the main thread's Tagger (Tagger.processWith).
import type { NerSeed } from '../contracts/chunk.js';
import { kernelOf } from '../runtime/off-thread.js';
import { buildGazetteer } from './gazetteer.js';
import { buildKeywordLists } from './keyword-lists.js';
import type { TagSetup } from './tag-batch.js';
import { readingOf } from './layout.js';
import { NerSeeder } from './tag-record.js';

export const SEED_KERNEL = kernelOf(import.meta.url, 'nerSeeds');

/** The kernel: the matchers built once from the setup, then one seed per text, read as a reader does (layout.ts). */
export function nerSeeds(setup: TagSetup): (text: string) => NerSeed {
  const seeder = new NerSeeder(buildGazetteer(setup.lexicon), buildKeywordLists(setup.keywordFiles));
  return (text) => {
    const reading = readingOf(text);
    return seeder.seed(reading.text, reading.formLabels);
  };
}
