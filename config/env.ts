/** Shared pieces of the configuration schema: field parsers and the start-up error. */
import { z } from "zod";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** An optional URL that must use one of `protocols`; empty = unset. */
export const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine(
      (v) => v === undefined || protocols.some((p) => v.startsWith(`${p}://`)),
      `must be a URL starting with ${protocols.map((p) => `${p}://`).join(" or ")}`,
    );

/** An optional secret of at least `min` characters; empty = unset. */
export const optionalSecret = (min: number) =>
  z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || v.length >= min, `must be at least ${min} characters`);

/** An on/off switch: `1`/`true` = on, anything else allowed = off. */
export const boolFlag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");
