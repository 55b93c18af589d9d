/**
 * The upload an extraction runs for: its tenant (for the per-tenant bound on extraction
 * jobs) and its request's AbortSignal (a client that went away cancels the job).
 * DocumentService hands it to `extract(file, scope)`.
 */
export interface UploadScope {
  tenantId: string;
  signal?: AbortSignal | undefined;
}
