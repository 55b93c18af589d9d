/**
 * JSON rows to the fast path's input tensors (the contract of docs/foundry-onnx.md, the same
 * conversions as the lab's preprocessing, lab/src/lab/models/preprocess.py `_to_float`/`_to_str`):
 *
 * - float64 inputs: a number as it is; a boolean 1/0; a numeric string parsed ("3.5"; pandas'
 *   `to_numeric(errors="coerce")`); a datetime column's ISO string as epoch seconds (UTC); null,
 *   an absent key, an empty or unparsable string, an object → NaN (a missing value, imputed by the
 *   graph with the training median);
 * - string inputs: a string as it is (the empty string is a category of its own, as in the lab);
 *   null or an absent key → "__missing__"; a boolean "True"/"False" (Python's str); a number its
 *   JSON text; anything else its JSON.
 */

import type { FastInput } from "../../domain/foundry/serving/fast-path.ts";
import type { JsonValue } from "../../domain/ports.ts";
import type { Column } from "./protocol.ts";

export const MISSING = "__missing__";

/** The column tensors of `rows` (strings dictionary-encoded: protocol.ts `Column`). */
export function toFeeds(
  inputs: readonly FastInput[],
  rows: readonly Record<string, JsonValue>[],
): Record<string, Column> {
  const feeds: Record<string, Column> = {};
  const n = rows.length;
  for (const input of inputs) {
    const name = input.name;
    if (input.type === "string") {
      const index = new Map<string, number>();
      const values: string[] = [];
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = toCategory((rows[i] as Record<string, JsonValue>)[name]);
        let code = index.get(v);
        if (code === undefined) {
          code = values.push(v) - 1;
          index.set(v, code);
        }
        codes[i] = code;
      }
      feeds[name] = { type: "string", values, codes };
    } else {
      const data = new Float64Array(n);
      const datetime = input.kind === "datetime";
      for (let i = 0; i < n; i++) data[i] = toNumber((rows[i] as Record<string, JsonValue>)[name], datetime);
      feeds[name] = { type: "float64", data };
    }
  }
  return feeds;
}

export function toNumber(v: JsonValue | undefined, datetime = false): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const s = v.trim();
    if (s === "") return Number.NaN;
    if (datetime) {
      // pandas reads a zone-less timestamp as UTC; JavaScript would read it as local time.
      const iso = s.length > 10 && s[10] === " " ? `${s.slice(0, 10)}T${s.slice(11)}` : s;
      const zoned = /[zZ]$|[+-]\d\d:?\d\d$/.test(iso) || !iso.includes("T");
      const ms = Date.parse(zoned ? iso : `${iso}Z`);
      return Number.isNaN(ms) ? Number.NaN : ms / 1000;
    }
    const x = Number(s);
    return Number.isNaN(x) ? Number.NaN : x;
  }
  return Number.NaN;
}

export function toCategory(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return MISSING;
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return String(v);
  return JSON.stringify(v);
}

/** A column as the data of an ONNX Runtime tensor. */
export function tensorData(col: Column): Float64Array | string[] {
  if (col.type === "float64") return col.data;
  const out = new Array<string>(col.codes.length);
  for (let i = 0; i < col.codes.length; i++) out[i] = col.values[col.codes[i] as number] as string;
  return out;
}
