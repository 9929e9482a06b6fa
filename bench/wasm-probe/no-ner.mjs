// `node --import bench/wasm-probe/no-ner.mjs bin/rca-tag …`: rca-tag with its NER replaced by one
// fixed empty seed, to measure what the rest of the stage costs (the output differs: measuring only).
import { NerSeeder } from '../../dist/tagging/tag-record.js';

const EMPTY = {
  systems: [], equipment_ids: [], components: [], mechanisms: [], outcomes: [], surveillance_actions: [],
  maintenance_actions: [], properties: [], tools: [], fm_ids: [], doc_refs: [], alarm_ids: [], measurements: [],
  temporal_refs: [], temporal_relations: [], temporal_qualifiers: [], locations: [], conjectures: [], negated: [],
};
NerSeeder.prototype.seed = () => EMPTY;
