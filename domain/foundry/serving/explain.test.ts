/** The explanation never shows a number or a feature that is not stored (explain.ts). */
import { describe, expect, test } from "bun:test";
import type { ChatModel, ChatRequest } from "../../llm.ts";
import { type ExplainFacts, explain, numbersIn, templateExplanation, unsupportedClaim } from "./explain.ts";

const facts: ExplainFacts = {
  model_name: "credit-v2",
  algorithm: "LightGBM",
  target: "class",
  problem_type: "classification",
  importances: [
    { feature: "a13", importance: 0.31 },
    { feature: "a1", importance: 0.2 },
    { feature: "duration", importance: 0.125 },
  ],
  method: "feature_importances_",
  criterion: { metric: "val_accuracy", value: 0.765 },
};

const model = (content: string | null, fail = false): ChatModel => ({
  model: "m",
  chat: async (_req: ChatRequest) => {
    if (fail) throw new Error("boom");
    return { content, toolCalls: [], finishReason: "stop", model: "m" };
  },
});

describe("explain", () => {
  test("the template names the stored features and only stored numbers", async () => {
    const text = templateExplanation(facts);
    expect(text).toContain("a13, importance 0.31 (31% of the total)");
    expect(text).toContain("val_accuracy was 0.765");
    expect(unsupportedClaim(text, facts)).toBeNull();
    const ex = await explain(facts, null);
    expect(ex).toMatchObject({ source: "template", fallback_reason: null });
  });

  test("digits inside names are not numbers (a13 is scrubbed before a1)", () => {
    expect(unsupportedClaim("`a13` and `a1` matter in credit-v2", facts)).toBeNull();
    expect(numbersIn("by 12.5% or 3e-2")).toEqual(["12.5", "3e-2"]);
  });

  test("the model's text when it holds, the template otherwise", async () => {
    const ok = await explain(facts, model("`a13` leads with 31% of the importance; accuracy 0.765."));
    expect(ok.source).toBe("llm");
    const invented = await explain(facts, model("`a13` raises default risk by 40%."));
    expect(invented).toMatchObject({ source: "template" });
    expect(invented.fallback_reason).toContain("40");
    const unknown = await explain(facts, model("`income` matters most."));
    expect(unknown.fallback_reason).toContain("income");
    expect((await explain(facts, model(null))).source).toBe("template");
    expect((await explain(facts, model("x", true))).fallback_reason).toContain("boom");
  });
});
