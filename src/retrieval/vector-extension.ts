// sqlite-vec, the SQLite extension that stores and searches the vectors of an index, loaded into
// better-sqlite3's own SQLite. Its platform build comes as an optional npm package
// (sqlite-vec-linux-x64, -darwin-arm64, ...): a platform without one, or a build that will not
// load, leaves the index without vectors, never without keyword search.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

export type ExtensionLoader = (db: Database.Database) => void;

// Required when an index is opened, not at start-up: a search without vectors never loads it.
const defaultLoader: ExtensionLoader = (db) => {
  const { load } = createRequire(import.meta.url)('sqlite-vec') as { load: ExtensionLoader };
  load(db);
};

/** Loads sqlite-vec into `db`: null when it loaded, else why not, in one line. */
export function loadVectorExtension(db: Database.Database, loader: ExtensionLoader = defaultLoader): string | null {
  try {
    loader(db);
    return null;
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    return `sqlite-vec could not be loaded (${message.slice(0, 200)}): vectors are neither stored nor searched, keyword search works`;
  }
}
