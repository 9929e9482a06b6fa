// Tag stages built on ParallelTagger with settings the command line does not reach: a substitute
// worker entry (faults), or no worker at all (what --jobs auto does with a small input, on any
// machine). They tag with the built-in lexicon and take --doc-type like rca-tag.
import { defineStage } from '../../../src/runtime/stage.js';
import { parseLexiconCsv } from '../../../src/tagging/lexicon.js';
import { ParallelTagger, type ParallelTaggerConfig } from '../../../src/tagging/tag-pool.js';
import tag from '../../../src/transforms/tag.js';

export function parallelTagStage(config: Partial<Omit<ParallelTaggerConfig, 'setup'>>) {
  return defineStage({
    name: 'tag',
    summary: 'tag on ParallelTagger with test settings',
    examples: [],
    options: { 'doc-type': tag.options['doc-type'] },
    create: (options, setup) => {
      const read = (name: string) => setup.readText(setup.dataFile(`keywords/${name}.csv`));
      return new ParallelTagger({
        jobs: 2,
        spawnAfterBytes: 0,
        ...config,
        setup: {
          lexicon: parseLexiconCsv(setup.readText(setup.dataFile('lexicon/rca-default.csv')), 'builtin'),
          keywordFiles: {
            temporalQualifiers: read('temporal_qualifiers'),
            temporalRelations: read('temporal_relations'),
            locations: read('locations'),
            conjectures: read('conjectures'),
          },
          context: { docTypeMode: options['doc-type'], authority: null },
        },
      });
    },
  });
}

/** Every block tagged on the main thread: the blocks, the in-order checks and the tagging again alone. */
export const noWorkerTag = parallelTagStage({ spawnAfterBytes: Infinity });
