/**
 * The upload an extraction runs for: its tenant (for the per-tenant bound on extraction
 * jobs) and its request's AbortSignal (a client that went away cancels the job).
 *
 * DocumentService passes it explicitly to `extract(file, scope)` and also runs the call
 * inside `uploadScope`, so an extractor wired by a composition root that forwards only the
 * file still sees it. Explicit arguments win over the ambient scope.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface UploadScope {
  tenantId: string;
  signal?: AbortSignal | undefined;
}

export const uploadScope = new AsyncLocalStorage<UploadScope>();

/** The current upload's scope, if any. */
export function currentUpload(): UploadScope | undefined {
  return uploadScope.getStore();
}
