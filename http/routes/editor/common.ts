/** What the editor routes share: the tag, the body limits, the caller and doc_ast checking. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { parseDocAst } from "../../../domain/editor/index.ts";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { AppEnv } from "../../context.ts";
import { ErrorBody, json } from "../../schemas.ts";

/** doc_ast bodies (PATCH, POST). */
export const MAX_DOC_BODY_BYTES = 8 * 1024 * 1024;
/** CRDT states from the collaboration server (base64 inflates by a third). */
export const MAX_YJS_BODY_BYTES = 48 * 1024 * 1024;

export const TAG = "Collaborative editor";

export const limit = (maxSize: number): MiddlewareHandler<AppEnv> =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `The request body exceeds ${maxSize} bytes`);
    },
  });

export const NOT_FOUND = { 404: json(ErrorBody, "No such document in the caller's tenant") };

/** The JWT's user: the caller of every route but the collaboration server's. */
export const user = (c: { get(key: "identity"): unknown }) => c.get("identity") as UserIdentity;

/** doc_ast as a checked ProseMirror node, or the section 7 body pointing into the tree. */
export function checkedDocAst(value: unknown) {
  const parsed = parseDocAst(value);
  if (!parsed.ok) throw AppError.validation(parsed.issues);
  return parsed.node;
}
