/**
 * A search thread of the embedded index: it opens tenant files read-only (WAL lets it read
 * while the service thread writes) and runs `searchSnapshot`, so a vector search over a large
 * tenant never blocks the service's event loop. Requests are handled one at a time. The
 * thread holds the HNSW indexes of the tenants it searches (ann-registry.ts) and saves their
 * unsaved changes when the pool closes it.
 */
import { Database } from "bun:sqlite";
import * as sqliteVec from "sqlite-vec";
import type { Fused } from "../../domain/documents/fusion.ts";
import type { SearchHit } from "../../domain/documents/types.ts";
import { type AnnOptions, AnnRegistry } from "./ann-registry.ts";
import { HandleCache } from "./handles.ts";
import { KeywordRegistry } from "./keyword-registry.ts";
import type { CompiledSearch } from "./search-request.ts";
import {
  hydrateSnapshot,
  type IndexLookup,
  type LegsOutcome,
  type LegsPart,
  legsSnapshot,
  measuredSearchSnapshot,
  type SearchOutcome,
} from "./sqlite-search.ts";

declare const self: Worker;

/** What a thread is asked to do with a search (search-pool.ts splits large ones in parts). */
export type SearchTask =
  | { kind: "whole" }
  /** One part of a split search: the keyword leg over `seqs`, and the vector leg if `dense`. */
  | ({ kind: "legs" } & LegsPart)
  /** The end of a split search: hydrate the fused ranking, re-checking the ACL. */
  | { kind: "hydrate"; ranked: Fused[] };

export type SearchAnswer = SearchOutcome | LegsOutcome | SearchHit[];

export type ToSearchWorker =
  | {
      type: "search";
      id: number;
      file: string;
      req: CompiledSearch;
      task: SearchTask;
      dim: number;
      ann: AnnOptions;
    }
  /** The file was dropped or replaced: close any handle to it before the next search. */
  | { type: "forget"; file: string }
  /** The pool is closing: save unsaved HNSW changes, then answer `closed`. */
  | { type: "close" };

export type FromSearchWorker =
  | { type: "result"; id: number; answer: SearchAnswer }
  | { type: "error"; id: number; message: string; code: string | null }
  | { type: "closed" };

const handles = new HandleCache(32);
const anns = new AnnRegistry();
const keywords = new KeywordRegistry();

function open(file: string): Database {
  return handles.get(file, () => {
    const db = new Database(file, { readonly: true, strict: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000;");
      sqliteVec.load(db);
    } catch (err) {
      db.close();
      throw err;
    }
    return db;
  });
}

self.onmessage = (e: MessageEvent<ToSearchWorker>) => {
  const msg = e.data;
  if (msg.type === "forget") {
    handles.close(msg.file);
    anns.forget(msg.file);
    keywords.forget(msg.file);
    return;
  }
  if (msg.type === "close") {
    try {
      keywords.close();
      anns.flush();
    } finally {
      self.postMessage({ type: "closed" } satisfies FromSearchWorker);
    }
    return;
  }
  try {
    const { file, dim, ann, task } = msg;
    const db = open(file);
    const lookup: IndexLookup = {
      ann: (snap, chunks) => anns.get(snap, file, dim, ann, chunks),
      keyword: (snap, chunks) => keywords.get(snap, file, ann, chunks),
    };
    const answer: SearchAnswer =
      task.kind === "whole"
        ? measuredSearchSnapshot(db, msg.req, lookup)
        : task.kind === "legs"
          ? legsSnapshot(db, msg.req, lookup, task)
          : hydrateSnapshot(db, msg.req, task.ranked);
    self.postMessage({ type: "result", id: msg.id, answer } satisfies FromSearchWorker);
  } catch (err) {
    const code = err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : null;
    const message = err instanceof Error ? err.message : String(err);
    self.postMessage({ type: "error", id: msg.id, message, code } satisfies FromSearchWorker);
  }
};
