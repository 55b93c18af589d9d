/**
 * The news stream's wire protocol (spec 4.5, 6.1): parsing and validating what a client
 * sends, and encoding what the server sends. This is the socket's edge (STYLE habit 5):
 * the hub and the index only ever see a validated, normalised NewsFilter.
 *
 * Normalisation, so that the echoed filter is exactly what is matched:
 * - tickers and countries are upper-cased (they are codes: "aapl" means AAPL);
 * - categories, sentiment and source_types are lower-cased (their vocabularies are
 *   lower-case words: "earnings", "mergers_acquisitions", "bullish", "rss");
 * - duplicates are removed (first occurrence kept); an empty list or null means "no
 *   constraint on this field" and is left out of the echo.
 */
import { z } from "zod";
import { type NewsFilter, SENTIMENT_LABELS, SOURCE_TYPES } from "../../domain/news/types.ts";

export const FILTER_LIMITS = {
  /** Most values in one list field; a watch-list of 500 tickers is generous. */
  maxValues: 500,
  /** Longest single value (tickers, categories). */
  maxValueLength: 64,
  /** Longest client message, in UTF-16 code units (a 500-ticker filter is ~5 KB). */
  maxMessageLength: 64 * 1024,
} as const;

export type ClientMessage = { ok: true; filter: NewsFilter } | { ok: false; message: string };

const list = <T extends z.ZodType<string>>(label: string, item: T) =>
  z
    .array(item, { error: `${label} must be an array of strings` })
    .max(FILTER_LIMITS.maxValues, `${label} may hold at most ${FILTER_LIMITS.maxValues} values`)
    .nullish();

const text = (label: string) =>
  z
    .string({ error: `${label} must be an array of strings` })
    .trim()
    .min(1, `${label} may not contain empty strings`)
    .max(FILTER_LIMITS.maxValueLength, `${label} values are at most ${FILTER_LIMITS.maxValueLength} characters`);

/** A lower-cased word from a fixed set; the schema is passed in so its literal type survives. */
const oneOf = <S extends z.ZodType<string>>(label: string, values: readonly string[], schema: S) => {
  const error = (got: unknown) => `${label} must be one of ${values.join(", ")} (got ${JSON.stringify(got)})`;
  return z
    .string({ error: (i) => error(i.input) })
    .trim()
    .toLowerCase()
    .pipe(z.custom<z.output<S>>((v) => schema.safeParse(v).success, { error: (i) => error(i.input) }));
};

const FilterMessage = z.strictObject(
  {
    tickers: list("tickers", text("tickers").toUpperCase()),
    categories: list("categories", text("categories").toLowerCase()),
    countries: list(
      "countries",
      text("countries")
        .toUpperCase()
        .regex(/^[A-Z]{2}$/, "countries must be ISO 3166-1 alpha-2 codes such as US or GB"),
    ),
    sentiment: oneOf("sentiment", SENTIMENT_LABELS, z.enum(SENTIMENT_LABELS)).nullish(),
    min_impact: z
      .number({ error: (i) => `min_impact must be a number from 0.0 to 1.0 (got ${JSON.stringify(i.input)})` })
      .min(0, { error: (i) => `min_impact must be a number from 0.0 to 1.0 (got ${JSON.stringify(i.input)})` })
      .max(1, { error: (i) => `min_impact must be a number from 0.0 to 1.0 (got ${JSON.stringify(i.input)})` })
      .nullish(),
    source_types: list("source_types", oneOf("source_types", SOURCE_TYPES, z.enum(SOURCE_TYPES))),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? `unknown filter field(s): ${i.keys.join(", ")}` : undefined) },
);

const dedupe = <T>(values: readonly T[]): T[] => [...new Set(values)];

/**
 * Reads one client text frame. Malformed JSON answers with the parser's own message
 * (spec 6.1: "the parse error text"); a well-formed but invalid filter answers with what
 * is wrong. Either way the caller keeps the connection and the previous filter.
 */
export function parseClientMessage(raw: string): ClientMessage {
  if (raw.length > FILTER_LIMITS.maxMessageLength) {
    return { ok: false, message: `message too long (at most ${FILTER_LIMITS.maxMessageLength} characters)` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { ok: false, message: "invalid filter: the filter must be a JSON object" };
  }
  const parsed = FilterMessage.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => i.message);
    return { ok: false, message: `invalid filter: ${dedupe(issues).join("; ")}` };
  }
  const p = parsed.data;
  // Fields in spec order, absent when unconstrained, so the echo reads the same every time.
  const filter: NewsFilter = {};
  if (p.tickers?.length) filter.tickers = dedupe(p.tickers);
  if (p.categories?.length) filter.categories = dedupe(p.categories);
  if (p.countries?.length) filter.countries = dedupe(p.countries);
  if (p.sentiment != null) filter.sentiment = p.sentiment;
  if (p.min_impact != null) filter.min_impact = p.min_impact;
  if (p.source_types?.length) filter.source_types = dedupe(p.source_types);
  return { ok: true, filter };
}

/** Server messages other than articles (article frames are spliced by the subscriber). */
export type ServerControlMessage =
  | { type: "connected"; message: string }
  | { type: "filter_applied"; filter: NewsFilter }
  | { type: "error"; message: string };

export function encodeControl(message: ServerControlMessage): string {
  return JSON.stringify(message);
}

export const CONNECTED_MESSAGE =
  "Connected to the Cairn news stream. Send a filter (JSON object) at any time; " +
  "a new filter replaces the previous one, and an empty filter delivers all news.";
