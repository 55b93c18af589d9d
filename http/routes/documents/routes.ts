/**
 * Documents (spec 2.10, 4.6): streamed multipart upload and ACL'd search. API key only
 * (spec 5). The upload checks the index and takes an upload slot before it reads a byte
 * of the body, so a refused request costs nothing; the body is then streamed (413 as soon
 * as the file passes 50 MB) and the answer is sent once the document is in the index.
 * The request's signal follows the upload: a client that goes away leaves the gate's queue,
 * has its extraction job dropped or its worker terminated, and nothing is indexed.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { MultipartLimits } from "./multipart.ts";
import { registerDocumentRecordRoutes } from "./record-routes.ts";
import { registerSearchRoute } from "./search-route.ts";
import { registerUploadRoute, UPLOAD_LIMITS } from "./upload-route.ts";

/** Upload, search, then one document's read and delete (the OpenAPI document's order). */
export function registerDocumentRoutes(
  app: OpenAPIHono<AppEnv>,
  documents: DocumentService,
  guards: Guards,
  limits: MultipartLimits = UPLOAD_LIMITS,
): void {
  registerUploadRoute(app, documents, guards, limits);
  registerSearchRoute(app, documents, guards);
  registerDocumentRecordRoutes(app, documents, guards);
}
