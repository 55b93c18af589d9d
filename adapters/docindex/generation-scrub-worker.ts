/**
 * A scrub's thread (generation-check.ts): hashes one generation file off the search thread and
 * answers `{ digest }`, null when the file could not be read.
 */
import { type DigestMethod, digestOf } from "./generation-check.ts";

declare const self: Worker;

self.onmessage = (e: MessageEvent<{ path: string; method: DigestMethod }>) => {
  let digest: string | null = null;
  try {
    digest = digestOf(e.data.path, e.data.method);
  } catch {
    // missing or unreadable
  }
  self.postMessage({ digest });
};
