/**
 * The OpenAPI 3.1 document (generated from the route schemas) and a human docs page
 * served from the swagger-ui-dist package, so /docs works without internet access.
 */
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";

const SWAGGER_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));

export function mountOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "User access token (HS256 from this installation, or RS256/ES256 from the configured JWKS).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "A user's API key (created in the dashboard or with `bun run cli apikey`).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The admin-consumer key of this installation (`bun run cli admin-key`).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "collabSecret", {
    type: "apiKey",
    in: "header",
    name: "X-Collab-Secret",
    description: "Shared secret of the collaboration server (internal).",
  });

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Cairn API",
      version: "1.0.0",
      description:
        "Multi-tenant financial data, documents and model building. Errors: {detail: string}; invalid parameters: 422 {detail: [{loc, msg, type, input, ctx}]}.",
    },
    servers: [{ url: "/" }],
  });

  app.get("/docs", (c) =>
    c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cairn API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true });</script>
</body></html>`),
  );
  app.get("/docs/assets/:file{swagger-ui\\.css|swagger-ui-bundle\\.js}", async (c) => {
    const file = c.req.param("file");
    const type = file.endsWith(".css") ? "text/css" : "text/javascript";
    return new Response(Bun.file(join(SWAGGER_DIR, file)), {
      headers: { "content-type": `${type}; charset=utf-8`, "cache-control": "public, max-age=86400" },
    });
  });
}
