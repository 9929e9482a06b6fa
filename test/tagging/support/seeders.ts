// The seeders tag tests share: the built-in lexicon and keyword lists of data/, and the DACKAR
// reference lexicon, each read once from the repository as rca-tag reads them.
import { readFileSync } from 'node:fs';
import { buildGazetteer } from '../../../src/tagging/gazetteer.js';
import { buildKeywordLists } from '../../../src/tagging/keyword-lists.js';
import { parseLexiconCsv } from '../../../src/tagging/lexicon.js';
import { NerSeeder } from '../../../src/tagging/tag-record.js';

export const readRepoFile = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

export const builtInKeywords = buildKeywordLists({
  temporalQualifiers: readRepoFile('data/keywords/temporal_qualifiers.csv'),
  temporalRelations: readRepoFile('data/keywords/temporal_relations.csv'),
  locations: readRepoFile('data/keywords/locations.csv'),
  conjectures: readRepoFile('data/keywords/conjectures.csv'),
});

export const builtInSeeder = new NerSeeder(buildGazetteer(parseLexiconCsv(readRepoFile('data/lexicon/rca-default.csv'), 'builtin')), builtInKeywords);

export const referenceSeeder = new NerSeeder(
  buildGazetteer(parseLexiconCsv(readRepoFile('test/fixtures/dackar/tag_keywords_lists.derived.csv'), 'reference')),
  builtInKeywords,
);
