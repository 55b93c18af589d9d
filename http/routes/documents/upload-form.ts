/**
 * The upload form of spec 4.6, validated: every field, its default, the conditional
 * fields, and the rule that tenant_id / identity_id name the caller (403 otherwise).
 * All field problems are reported together in one section-7 body.
 */
import type { DocType, DocumentAcl, Visibility } from "../../../domain/documents/types.ts";
import { DOC_TYPES, VISIBILITIES } from "../../../domain/documents/types.ts";
import { AppError, type ValidationIssue } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { FormFile, ParsedForm } from "./multipart.ts";

export const UPLOAD_FIELDS = [
  "tenant_id",
  "identity_id",
  "entity_id",
  "doc_type",
  "visibility",
  "allowed_identity_ids",
  "allowed_roles",
  "barrier_id",
] as const;

export interface UploadForm {
  file: FormFile;
  tenantId: string;
  identityId: string;
  entityId: string | null;
  docType: DocType;
  acl: DocumentAcl;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IDENTITY_RE = /^[0-9]{1,19}$/;
const ROLE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX_LIST = 1000;
const MAX_ENTITY = 256;
const MAX_FILENAME = 255;

const quoteList = (xs: readonly string[]) => {
  const q = xs.map((x) => `'${x}'`);
  return q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q.at(-1)}` : (q[0] ?? "");
};

export function parseUploadForm(form: ParsedForm, caller: UserIdentity): UploadForm {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string, type: string, input: unknown = null, ctx: Record<string, unknown> = {}) =>
    issues.push({ loc: ["body", field], msg, type, input, ctx });

  for (const [name, values] of form.fields) {
    if (!(UPLOAD_FIELDS as readonly string[]).includes(name)) {
      issue(name, "Extra inputs are not permitted", "extra_forbidden", values[0] ?? null);
    } else if (values.length > 1) {
      issue(name, "Field given more than once", "value_error", values, { count: values.length });
    }
  }
  // An empty value is treated as absent (HTML forms send empty optional inputs).
  const one = (name: string): string | undefined => {
    const v = form.fields.get(name)?.[0]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };

  const file = form.file;
  if (!file) issue("file", "Field required", "missing");
  else if (file.field !== "file") issue(file.field, "The document must be sent in the field 'file'", "extra_forbidden");
  const filename = file ? baseName(file.filename) : "";
  if (file && file.field === "file" && filename === "")
    issue("file", "The file part needs a filename", "missing", null);
  if (filename.length > MAX_FILENAME)
    issue("file", `Filename should have at most ${MAX_FILENAME} characters`, "string_too_long", filename, {
      max_length: MAX_FILENAME,
    });

  const tenantId = one("tenant_id");
  if (tenantId === undefined) issue("tenant_id", "Field required", "missing");
  else if (!UUID_RE.test(tenantId)) issue("tenant_id", "Input should be a valid UUID", "uuid_parsing", tenantId);

  const identityId = one("identity_id");
  if (identityId === undefined) issue("identity_id", "Field required", "missing");
  else if (!IDENTITY_RE.test(identityId))
    issue("identity_id", "Input should be an identity id (a decimal user id)", "value_error", identityId);

  const entityId = one("entity_id") ?? null;
  if (entityId !== null && entityId.length > MAX_ENTITY)
    issue("entity_id", `String should have at most ${MAX_ENTITY} characters`, "string_too_long", entityId, {
      max_length: MAX_ENTITY,
    });

  const docTypeRaw = one("doc_type") ?? "other";
  if (!(DOC_TYPES as readonly string[]).includes(docTypeRaw))
    issue("doc_type", `Input should be ${quoteList(DOC_TYPES)}`, "enum", docTypeRaw, {
      expected: quoteList(DOC_TYPES),
    });

  const { visibility, ids, roles, barrierId } = parseAccess(one, issue);

  if (issues.length > 0) throw AppError.validation(issues);

  // The form names the caller; it may not act for another tenant or identity.
  if (tenantId?.toLowerCase() !== caller.tenantId.toLowerCase())
    throw new AppError("forbidden", "tenant_id is not the tenant of the API key");
  if (canonicalId(identityId ?? "") !== String(caller.user.id))
    throw new AppError("forbidden", "identity_id is not the identity of the API key");

  return {
    file: { ...(file as FormFile), filename },
    tenantId: caller.tenantId,
    identityId: String(caller.user.id),
    entityId,
    docType: docTypeRaw as DocType,
    acl: {
      visibility,
      allowed_identity_ids: visibility === "deal_private" ? [...new Set((ids ?? []).map(canonicalId))] : [],
      allowed_roles: visibility === "team_only" ? (roles ?? []) : [],
      barrier_id: barrierId?.toLowerCase() ?? null,
    },
  };
}

type Issue = (field: string, msg: string, type: string, input?: unknown, ctx?: Record<string, unknown>) => void;

/** The access fields: visibility, the list its value requires (and only it), and barrier_id. */
function parseAccess(
  one: (name: string) => string | undefined,
  issue: Issue,
): { visibility: Visibility; ids: string[] | null; roles: string[] | null; barrierId: string | null } {
  const visibilityRaw = one("visibility") ?? "tenant_wide";
  const visibilityOk = (VISIBILITIES as readonly string[]).includes(visibilityRaw);
  if (!visibilityOk)
    issue("visibility", `Input should be ${quoteList(VISIBILITIES)}`, "enum", visibilityRaw, {
      expected: quoteList(VISIBILITIES),
    });
  const visibility = visibilityRaw as Visibility;

  const ids = list(one("allowed_identity_ids"));
  const roles = list(one("allowed_roles"));
  const conditional = (field: string, values: string[] | null, needed: Visibility, re: RegExp, what: string) => {
    if (!visibilityOk) return;
    if (visibility === needed) {
      if (values === null || values.length === 0)
        issue(field, `Field required when visibility is ${needed}`, "missing", null, { visibility });
    } else if (values !== null) {
      // Silently ignoring it would leave the document wider open than the uploader meant.
      issue(
        field,
        `Only allowed when visibility is ${needed} (visibility is ${visibility})`,
        "value_error",
        values.join(","),
        {
          visibility,
        },
      );
    }
    if (values && values.length > MAX_LIST)
      issue(field, `List should have at most ${MAX_LIST} items`, "too_long", null, { max_length: MAX_LIST });
    const bad = values?.filter((v) => !re.test(v)) ?? [];
    if (bad.length > 0) issue(field, `Each entry should be ${what}`, "value_error", bad.join(","), { invalid: bad });
  };
  conditional("allowed_identity_ids", ids, "deal_private", IDENTITY_RE, "an identity id (a decimal user id)");
  conditional("allowed_roles", roles, "team_only", ROLE_RE, "a role slug (a-z, 0-9, _ and -)");

  const barrierId = one("barrier_id") ?? null;
  if (barrierId !== null && !UUID_RE.test(barrierId))
    issue("barrier_id", "Input should be a valid UUID", "uuid_parsing", barrierId);
  return { visibility, ids, roles, barrierId };
}

/** "007" and "7" name the same user: identity ids are compared without leading zeros. */
function canonicalId(v: string): string {
  return v.replace(/^0+(?=\d)/, "");
}

/** Comma-separated, trimmed, empty entries dropped, duplicates removed; null when absent. */
function list(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  return [
    ...new Set(
      raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** Some clients send a path ("C:\\fakepath\\x.pdf"): keep the last segment. */
function baseName(name: string): string {
  return (name.split(/[\\/]/).pop() ?? "").trim();
}
