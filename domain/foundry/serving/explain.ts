/**
 * GET /models/{id}/explain (spec 4.9; docs/foundry-serving.md): plain English from the feature
 * importances stored at training time. Through the language model when one is configured; its
 * text is used only when every number in it and every feature it names in backticks is in the
 * record, otherwise (and without a model) the deterministic template below answers, labelled
 * `source: "template"`. Nothing here invents a feature or a number.
 */
import type { ChatModel } from "../../llm.ts";
import type { JsonValue } from "../../ports.ts";

/** Features an explanation covers (the largest importances first). */
export const EXPLAIN_TOP = 5;

export interface ExplainFacts {
  model_name: string;
  algorithm: string | null;
  target: string;
  problem_type: string;
  /** Stored importances, largest first, as the lab wrote them. */
  importances: { feature: string; importance: number }[];
  /** How the lab measured them (e.g. "feature_importances_", "permutation"). */
  method: string | null;
  /** The winner's criterion metric and its stored value. */
  criterion: { metric: string; value: number } | null;
}

export interface Explanation {
  source: "llm" | "template";
  text: string;
  features: { feature: string; importance: number }[];
  /** Why the language model's text was not used (template source only; null when none is configured). */
  fallback_reason: string | null;
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth"];
const fmt = (v: number) => String(v);
const percent = (v: number) => `${fmt(Math.round(v * 10000) / 100)}%`;

/**
 * The template: each top feature with its stored share and, when stored, the winner's metric.
 * The only numbers are stored values (importance shares as written, and as a percentage of the
 * same number) — the test checks each of them against the record.
 */
export function templateExplanation(f: ExplainFacts): string {
  const top = f.importances.slice(0, EXPLAIN_TOP);
  if (!top.length) {
    return `Model ${f.model_name} predicts ${f.target}, but no feature importances were stored for it, so there is nothing to explain.`;
  }
  const by = f.algorithm ? ` with ${f.algorithm}` : "";
  const lines = [
    `Model ${f.model_name} predicts ${f.target} (${f.problem_type})${by}.`,
    `The features that weigh most in its predictions, by the importances stored at training time${f.method ? ` (${f.method})` : ""}:`,
    ...top.map(
      (x, i) =>
        `- ${ORDINALS[i]}: ${x.feature}, importance ${fmt(x.importance)} (${percent(x.importance)} of the total)`,
    ),
  ];
  const first = top[0] as { feature: string };
  lines.push(
    `Changes in ${first.feature} move the prediction the most; features outside this list matter less to the model.`,
  );
  if (f.criterion) lines.push(`On the validation data its ${f.criterion.metric} was ${fmt(f.criterion.value)}.`);
  return lines.join("\n");
}

/** Every number written in `text` (integers and decimals, a trailing % kept apart). */
export function numbersIn(text: string): string[] {
  return [...text.matchAll(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi)].map((m) => m[0]);
}

/** The numbers a text about these facts may contain: the stored values and their percentages. */
export function allowedNumbers(f: ExplainFacts): Set<number> {
  const out = new Set<number>();
  for (const x of f.importances) {
    out.add(x.importance);
    out.add(Math.round(x.importance * 10000) / 100);
  }
  if (f.criterion) {
    out.add(f.criterion.value);
    out.add(Math.round(f.criterion.value * 10000) / 100);
  }
  return out;
}

/** Why `text` cannot be shown (a number or a backticked feature not in the facts), or null. */
export function unsupportedClaim(text: string, f: ExplainFacts): string | null {
  const allowed = allowedNumbers(f);
  const near = (n: number) => [...allowed].some((a) => Math.abs(a - n) <= 1e-9 * Math.max(1, Math.abs(a)));
  // Digits inside a feature or model name ("a13", "credit-v2") are part of the name, not a number.
  let scrubbed = text;
  const names = [f.model_name, f.target, ...f.importances.map((x) => x.feature)].sort((a, b) => b.length - a.length);
  for (const name of names) {
    scrubbed = scrubbed.split(name).join(" ");
  }
  if (f.algorithm) scrubbed = scrubbed.split(f.algorithm).join(" ");
  for (const raw of numbersIn(scrubbed)) {
    if (!near(Number(raw))) return `the text contains the number ${raw}, which is not stored`;
  }
  const known = new Set(f.importances.map((x) => x.feature));
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    if (!known.has(m[1] as string)) return `the text names the feature ${m[1]}, which is not stored`;
  }
  return null;
}

const SYSTEM = [
  "You explain a trained machine-learning model to a business user in plain English, in at most 120 words.",
  "Use ONLY the facts given. Do not invent features, numbers, thresholds or causes.",
  "Write every feature name in backticks exactly as given; write numbers exactly as given or not at all.",
].join(" ");

/** The explanation: the model's text when it passes the checks, else the template. */
export async function explain(f: ExplainFacts, llm: ChatModel | null, signal?: AbortSignal): Promise<Explanation> {
  const features = f.importances.slice(0, EXPLAIN_TOP);
  const template = (reason: string | null): Explanation => ({
    source: "template",
    text: templateExplanation(f),
    features,
    fallback_reason: reason,
  });
  if (!llm || !features.length) return template(null);
  const facts: Record<string, JsonValue> = {
    model_name: f.model_name,
    algorithm: f.algorithm,
    target: f.target,
    problem_type: f.problem_type,
    importance_method: f.method,
    top_feature_importances: features,
    validation: f.criterion,
  };
  try {
    const res = await llm.chat({
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: `Facts (JSON):\n${JSON.stringify(facts)}` },
      ],
      temperature: 0,
      maxTokens: 400,
      toolChoice: "none",
      ...(signal ? { signal } : {}),
    });
    const text = res.content?.trim() ?? "";
    if (!text) return template("the language model returned no text");
    const bad = unsupportedClaim(text, f);
    return bad ? template(bad) : { source: "llm", text, features, fallback_reason: null };
  } catch (err) {
    return template(`the language model failed: ${(err as Error).message}`);
  }
}
