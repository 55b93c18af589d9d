/**
 * Literals and identifiers of the dataset compiler (./sql.ts), per dialect: quoting, escaped
 * strings, values parsed as the column's real type into typed literals, `in` lists and
 * realtime windows. Nothing here sees a spec; everything here is pure.
 */

/** Most values in one `in` filter. */
export const MAX_IN_VALUES = 1000;
/** Longest filter value, in characters. */
export const MAX_VALUE_CHARS = 4096;
/** `7d`, `30d`, `12h`, `90m`, `2w`: the windows of realtime_cols; at most 3660 days. */
export const WINDOW_RE = /^([1-9][0-9]{0,5})([mhdw])$/;
const WINDOW_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const MAX_WINDOW_MS = 3660 * 86_400_000;

export type Dialect = "spark" | "duckdb";

/** Parses a `window` of realtime_cols into milliseconds, or null. */
export function windowMs(window: string): number | null {
  const m = WINDOW_RE.exec(window);
  if (!m) return null;
  const ms = Number(m[1]) * WINDOW_MS[m[2] as keyof typeof WINDOW_MS];
  return ms <= MAX_WINDOW_MS ? ms : null;
}

export function quoteIdent(name: string, d: Dialect): string {
  // Names are checked against IDENT_RE / the catalog first; quoting is the second fence.
  return d === "spark" ? `\`${name.replaceAll("`", "``")}\`` : `"${name.replaceAll('"', '""')}"`;
}

export function stringLiteral(value: string, d: Dialect): string {
  if (d === "spark") return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
  return `'${value.replaceAll("'", "''")}'`;
}

export const baseType = (t: string) => t.replace(/\(.*$/, "").toLowerCase();
export const NUMERIC = new Set(["int", "long", "float", "double", "decimal"]);
const INT_RE = /^[-+]?\d{1,19}$/;
const FLOAT_RE = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TS_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A typed literal for `raw` compared with a column of Iceberg type `type`; throws a message on a bad value. */
export function typedLiteral(raw: string, type: string, d: Dialect): string {
  const t = baseType(type);
  const value = raw.trim();
  switch (t) {
    case "boolean": {
      const v = value.toLowerCase();
      if (v !== "true" && v !== "false") throw new Error("must be true or false");
      return v === "true" ? "TRUE" : "FALSE";
    }
    case "int":
    case "long": {
      if (!INT_RE.test(value)) throw new Error(`must be an integer for a ${t} column`);
      const n = BigInt(value);
      const max = t === "int" ? 2n ** 31n : 2n ** 63n;
      if (n < -max || n >= max) throw new Error(`is out of range for a ${t} column`);
      return `CAST(${n.toString()} AS BIGINT)`;
    }
    case "float":
    case "double": {
      if (!FLOAT_RE.test(value) || !Number.isFinite(Number(value)))
        throw new Error(`must be a number for a ${t} column`);
      return `CAST(${stringLiteral(String(Number(value)), d)} AS DOUBLE)`;
    }
    case "decimal": {
      if (!FLOAT_RE.test(value) || /[eE]/.test(value)) throw new Error("must be a decimal number");
      const m = /^decimal\((\d+),\s*(\d+)\)$/.exec(type.toLowerCase());
      const ps = m ? `(${m[1]},${m[2]})` : "(38,10)";
      return `CAST(${stringLiteral(value, d)} AS DECIMAL${ps})`;
    }
    case "date": {
      const m = DATE_RE.exec(value);
      if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw new Error("must be a date YYYY-MM-DD");
      return `DATE ${stringLiteral(value, d)}`;
    }
    case "timestamp":
    case "timestamptz": {
      const m = TS_RE.exec(value);
      if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
        throw new Error("must be an ISO 8601 timestamp");
      }
      const ms = Date.parse(m[4] ? value.replace(" ", "T") + (m[8] ? "" : "Z") : `${value}T00:00:00Z`);
      if (!Number.isFinite(ms)) throw new Error("must be an ISO 8601 timestamp");
      const text = new Date(ms).toISOString().replace("T", " ").replace("Z", "");
      if (t === "timestamptz" && d === "duckdb") return `TIMESTAMPTZ ${stringLiteral(`${text}+00`, d)}`;
      return `TIMESTAMP ${stringLiteral(text, d)}`;
    }
    case "string":
      return stringLiteral(raw, d);
    default:
      throw new Error(`columns of type ${type} cannot be filtered`);
  }
}

function validDate(y: number, m: number, day: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, day));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === day && y >= 1 && y <= 9999;
}

/** The values of an `in` filter: a JSON array of strings, or comma-separated. */
export function listValues(raw: string): string[] {
  const v = raw.trim();
  if (v.startsWith("[")) {
    const parsed: unknown = JSON.parse(v);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string" || typeof x === "number")) {
      throw new Error("must be a JSON array of strings or numbers, or comma-separated values");
    }
    return parsed.map(String);
  }
  return v.split(",").map((s) => s.trim());
}
