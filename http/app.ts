/**
 * The Hono application: request context, one error handler, OpenAPI document and the
 * route groups. Routes are thin: validate -> domain service -> respond.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { AppError } from "../domain/errors.ts";
import { makeGuards } from "./auth/guards.ts";
import { limitBodies, refuseEncodedBodies } from "./body-limit.ts";
import type { AppEnv } from "./context.ts";
import type { AppDeps } from "./deps.ts";
import { withHotPath } from "./hot-path.ts";
import { jsonDepthRefusal, limitJsonDepth } from "./json-depth.ts";
import { methodsMatcher } from "./method-not-allowed.ts";
import { mountOpenApi } from "./openapi.ts";
import { appErrorProblem, boundDetail } from "./problem.ts";
import { headersTooLarge, MAX_HEADER_BYTES, requestContext } from "./request-context.ts";
import { registerDashboardRoutes } from "./routes/dashboard.ts";
import { registerBarrierRoutes } from "./routes/documents/barrier-routes.ts";
import { registerRagRoutes } from "./routes/documents/rag-routes.ts";
import { registerDocumentRoutes } from "./routes/documents/routes.ts";
import { registerEditorRoutes } from "./routes/editor/routes.ts";
import { registerExportRoutes } from "./routes/financials/exports/routes.ts";
import { registerPresentationRoutes } from "./routes/financials/presentations/routes.ts";
import { registerFinancialRoutes } from "./routes/financials/routes.ts";
import { registerTopicRoutes } from "./routes/financials/topics/routes.ts";
import { registerTranscriptRoutes } from "./routes/financials/transcripts/routes.ts";
import { registerFoundryRoutes } from "./routes/foundry/routes.ts";
import { registerLakehouseRoutes } from "./routes/lakehouse/routes.ts";
import { DEFAULT_MCP_SETTINGS, type McpRouteSettings, registerMcpRoutes } from "./routes/mcp/routes.ts";
import { registerNewsRoutes } from "./routes/news/routes.ts";
import { registerNewsStreamRoute } from "./routes/news/stream-routes.ts";
import { registerLakehouseHealth, registerOpsRoutes } from "./routes/ops/routes.ts";
import { registerRtdbRoutes } from "./routes/rtdb/routes.ts";
import { registerTenantRoutes } from "./routes/tenants/routes.ts";
import { registerUserRoutes } from "./routes/user/routes.ts";
import { toValidationIssues } from "./validation.ts";

// The header bound lives with the request context (the hot path checks it too).
export { MAX_HEADER_BYTES } from "./request-context.ts";

export function buildApp(deps: AppDeps, opts: { mcp?: McpRouteSettings } = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const data = (result as { data?: unknown }).data;
        throw AppError.validation(toValidationIssues(result.error.issues, result.target, data));
      }
      return undefined;
    },
  });
  app.use("*", requestContext(deps.logger));
  // Hostile-input guards, before any route (or its auth) runs: header size, encoded bodies,
  // the per-route body limit; the JSON depth check arms itself for the first parse. One
  // layer calling the three in turn: a Hono layer per guard cost a dispatch each.
  app.use("*", (c, next) => {
    // c.env is what Bun.serve passed (the server); in-process requests have none.
    if (headersTooLarge(c.req.raw.headers, c.env !== undefined)) {
      throw new AppError("headers_too_large", `Request headers exceed ${MAX_HEADER_BYTES} bytes`);
    }
    // None of the three answers by returning a Response (each refuses by throwing).
    return refuseEncodedBodies(c, async () => {
      await limitBodies(c, async () => {
        await limitJsonDepth(c, next);
      });
    });
  });
  app.onError(problemDocuments(deps.logger));
  app.notFound(notFoundOrNotAllowed(methodsMatcher(() => app.routes)));
  registerRoutes(app, deps);
  // The tool-protocol server calls the app itself (app.request), so it is mounted on it here.
  registerMcpRoutes(app, deps, opts.mcp ?? DEFAULT_MCP_SETTINGS);
  mountOpenApi(app);
  // The dashboard (web/, docs/dashboard.md): static pages on the public API, not in the document.
  registerDashboardRoutes(app);
  // GET /v1/user/me skips the router and the chain (same checks; http/hot-path.ts). An own
  // property, so app.request (tests, the MCP server) goes through it as Bun.serve does.
  app.fetch = withHotPath(deps, app.fetch);
  return app;
}

/** The one error handler: every refusal becomes a bounded problem document. */
function problemDocuments(logger: Logger): ErrorHandler<AppEnv> {
  return (caught, c) => {
    const err = jsonDepthRefusal(c) ?? caught;
    if (err instanceof AppError) {
      const problem = appErrorProblem(err);
      for (const k in problem.headers) c.header(k, problem.headers[k]);
      return c.json(problem.body, problem.status as ContentfulStatusCode);
    }
    if (err instanceof HTTPException) {
      // Hono's validator reports an unparsable JSON body as a 400; the contract wants the
      // section 7 validation body for every invalid input.
      if (/malformed json/i.test(err.message)) {
        const issue = {
          loc: ["body"],
          msg: "JSON decode error",
          type: "json_invalid",
          input: null,
          ctx: { error: err.message },
        };
        return c.json({ detail: [issue] }, 422);
      }
      return c.json({ detail: boundDetail(err.message || "Request refused") }, err.status);
    }
    (c.get("log")?.logger ?? logger).error({ err }, "unhandled error");
    return c.json({ detail: "Internal server error" }, 500);
  };
}

/** 405 with Allow where the path exists under other methods; 404 otherwise. */
function notFoundOrNotAllowed(methodsAt: (path: string) => string[]): NotFoundHandler<AppEnv> {
  return (c) => {
    const allowed = methodsAt(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      c.header("Allow", allowed.join(", "));
      return c.json(
        { detail: `Method ${boundDetail(c.req.method)} is not allowed here; allowed: ${allowed.join(", ")}` },
        405,
      );
    }
    return c.json({ detail: "Not Found" }, 404);
  };
}

/** Every area's routes, in the order the OpenAPI document lists them. */
function registerRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const guards = makeGuards(deps);
  registerOpsRoutes(app, deps);
  registerUserRoutes(app, deps, guards);
  registerTenantRoutes(app, deps, guards);
  registerLakehouseHealth(app, deps);
  registerLakehouseRoutes(app, deps, guards);
  registerFinancialRoutes(app, deps, guards);
  registerNewsStreamRoute(app, deps, guards);
  // After the stream route: /v1/news/{article_id} would otherwise claim /v1/news/stream.
  registerNewsRoutes(app, deps, guards);
  registerExportRoutes(app, deps, guards);
  registerTranscriptRoutes(app, deps, guards);
  registerTopicRoutes(app, deps, guards);
  registerPresentationRoutes(app, deps, guards);
  registerRtdbRoutes(app, deps, guards);
  registerDocumentRoutes(app, deps.documents, guards);
  registerBarrierRoutes(app, deps.documents.barriers, guards);
  registerRagRoutes(app, deps.documents, guards);
  registerEditorRoutes(app, deps.editor, guards);
  registerFoundryRoutes(app, deps, guards);
}
