/**
 * Notices every commit to a SQLite database in WAL mode, by any connection of any process,
 * without running a statement: it reads the wal-index header that SQLite keeps in the
 * shared-memory file beside the database (`<db>-shm`, format: sqlite.org/walformat.html).
 *
 * Why: a statement costs a WAL read lock (shared-memory and fcntl traffic) even for
 * `PRAGMA data_version`, about half of what reading a small row costs, so a cache
 * validated by a statement saves little. Every writer publishes its commit by rewriting
 * this header (the commit is not visible to readers before), and within one WAL
 * generation `mxFrame` only grows while a restart draws new salts, so a header equal to
 * an earlier copy means no commit happened in between. The header also changes without a
 * commit (checkpoints, a connection closing): that only costs a cache miss.
 *
 * Safety of the mapping: SQLite truncates the `-shm` file only when no connection holds it
 * (the DMS lock), and the client that made this watcher holds it until it closes; after
 * that `alive()` turns false and the header is never read again (a read past a truncated
 * mapping would be SIGBUS). Anything unexpected (no `-shm`, another header version)
 * yields no watcher, and callers read the database as before.
 */
import { existsSync } from "node:fs";

/** iVersion of the wal-index header (WALINDEX_MAX_VERSION), the only format understood. */
const WALINDEX_VERSION = 3_007_000;
/** The first copy of the header: 48 bytes, i.e. 12 32-bit words. */
const HEADER_WORDS = 12;

/** Tells whether anything was committed since its previous call. */
export interface ChangeWatcher {
  /** True when a commit may have happened since the last call (always true on the first). */
  changed(): boolean;
}

/** The mapped header of one database, shared by the watchers made from it. */
export class WalHeader {
  private constructor(
    private readonly words: Uint32Array,
    private readonly alive: () => boolean,
  ) {}

  /** Maps `<dbPath>-shm`; null when it cannot be read as a wal-index (no WAL, other format). */
  static open(dbPath: string, alive: () => boolean): WalHeader | null {
    const shm = `${dbPath}-shm`;
    if (!existsSync(shm)) return null;
    let bytes: Uint8Array;
    try {
      bytes = Bun.mmap(shm, { shared: true });
    } catch {
      return null;
    }
    if (bytes.byteLength < HEADER_WORDS * 4 || bytes.byteOffset % 4 !== 0) return null;
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
    if (words[0] !== WALINDEX_VERSION) return null;
    return new WalHeader(words, alive);
  }

  /** A watcher with its own last-seen copy, so one caller noticing a change hides it from none. */
  watcher(): ChangeWatcher {
    const words = this.words;
    const alive = this.alive;
    const seen = new Uint32Array(HEADER_WORDS);
    let first = true;
    return {
      changed(): boolean {
        // Closed: the mapping may no longer be backed; report a change so callers read.
        if (!alive()) return true;
        let diff = first;
        first = false;
        for (let i = 0; i < HEADER_WORDS; i++) {
          const w = words[i] as number;
          if (w !== seen[i]) {
            seen[i] = w;
            diff = true;
          }
        }
        return diff;
      },
    };
  }
}
