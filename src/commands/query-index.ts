// What rca search and rca eval-retrieval share: the index opened for reading, closed after, and
// their failures as exit statuses with one line on stderr.
import { IndexError, IndexStore } from '../retrieval/index-store.js';
import { QueryVectorError } from '../retrieval/query-vectors.js';
import { SearchError } from '../retrieval/search.js';
import { EXIT } from '../runtime/exit-codes.js';

/**
 * Runs `query` on the index in `db` and closes it. An index that cannot be opened, or a question
 * that cannot be embedded (QueryVectorError), is exit 3; a search the index cannot serve
 * (SearchError) is a usage error, 2. Any other error is thrown on.
 */
export async function queryIndex(db: string, say: (line: string) => void, query: (store: IndexStore) => Promise<number>): Promise<number> {
  let store: IndexStore;
  try {
    store = IndexStore.open(db, { create: false });
  } catch (err) {
    say(err instanceof IndexError ? err.message : String(err));
    return EXIT.FATAL;
  }
  try {
    return await query(store);
  } catch (err) {
    if (err instanceof SearchError) {
      say(err.message);
      return EXIT.USAGE;
    }
    if (err instanceof QueryVectorError) {
      say(err.message);
      return EXIT.FATAL;
    }
    throw err;
  } finally {
    store.close();
  }
}
