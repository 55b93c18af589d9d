/**
 * Natural-language data access (issue 15): accuracy of POST /v1/foundry/query's planners on
 * the evaluation set (test/fixtures/foundry/nl-eval.json, 60+ questions over the demo data
 * with answers verified against ../shared/data), against its ceiling, the expected answers
 * (100 %). One line per source and one overall, for the rules planner, and for the model
 * planner when CAIRN_LLM_URL and CAIRN_LLM_MODEL name an OpenAI-compatible endpoint.
 *
 * Also the time to answer, against the peer of running the very statement the answer
 * reports straight on the gateway (lakehouse questions): the ratio is the price of planning
 * (reading the tenant's tables and companies, validating) on top of the query itself.
 *
 * The demo is the one the e2e test builds (test/e2e/foundry-query-data.ts: real SEC sample,
 * news, market CSVs and graph filings; lab gateway on DuckDB; embedded time-series; Ladybug).
 * Failures are listed on stderr.
 *
 *   node_modules/.bin/bun bench/foundry-nl.ts
 */
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import { FoundryQuery, type QueryAnswer } from "../domain/foundry/query/service.ts";
import { lakehouseNamespace } from "../domain/tenants/namespaces.ts";
import { loadNlEval, type NlDemo, type NlEvalItem, scoreAnswer, startNlDemo } from "../test/e2e/foundry-query-data.ts";
import { emit, round, summarize } from "./runner.ts";

const CEILING = "foundry-nl/expected";

async function evaluate(
  name: string,
  d: NlDemo,
  ask: (q: string) => Promise<QueryAnswer>,
  items: NlEvalItem[],
): Promise<{ times: number[]; direct: number[] }> {
  const bySource = new Map<string, { ok: number; n: number }>();
  const times: number[] = [];
  const direct: number[] = [];
  let ok = 0;
  const results: boolean[] = [];
  for (const item of items) {
    const t0 = performance.now();
    let a: QueryAnswer;
    try {
      a = await ask(item.question);
    } catch (e) {
      a = {
        question: item.question,
        answered: false,
        source: null,
        columns: [],
        rows: [],
        explanation: String(e),
        planner: "rules",
        truncated: false,
      };
    }
    times.push(performance.now() - t0);
    const s = scoreAnswer(item, a);
    results.push(s.ok);
    const key = item.source ?? "unanswerable";
    const b = bySource.get(key) ?? { ok: 0, n: 0 };
    b.n++;
    if (s.ok) {
      b.ok++;
      ok++;
    } else {
      process.stderr.write(`[${name}] ${item.id}: ${s.why}\n`);
    }
    bySource.set(key, b);
    if (a.answered && a.source === "lakehouse" && a.sql) {
      const t1 = performance.now();
      await d.lake.sql(lakehouseNamespace(d.tenant.slug), a.sql);
      direct.push(performance.now() - t1);
    }
  }
  emit({ bench: CEILING, metric: "accuracy", value: 100, unit: "%", peer: null, ratio: null });
  for (const [source, b] of [...bySource].sort()) {
    const v = (b.ok / b.n) * 100;
    emit({
      bench: `foundry-nl/${name}/${source}`,
      metric: "accuracy",
      value: round(v),
      unit: "%",
      peer: CEILING,
      ratio: round(v / 100, 4),
    });
  }
  const held = items.map((item, i) => ({ item, i })).filter((x) => x.item.held_out);
  if (held.length) {
    const v = (held.filter((x) => results[x.i]).length / held.length) * 100;
    emit({
      bench: `foundry-nl/${name}/held-out`,
      metric: "accuracy",
      value: round(v),
      unit: "%",
      peer: CEILING,
      ratio: round(v / 100, 4),
    });
  }
  const all = (ok / items.length) * 100;
  emit({
    bench: `foundry-nl/${name}`,
    metric: "accuracy",
    value: round(all),
    unit: "%",
    peer: CEILING,
    ratio: round(all / 100, 4),
  });
  process.stdout.write(`${JSON.stringify({ bench: `foundry-nl/${name}`, questions: items.length, correct: ok })}\n`);
  return { times, direct };
}

const d = await startNlDemo("bench foundry-nl");
if (!d) {
  process.stderr.write("foundry-nl: the shared data or the lab venv is missing\n");
  process.exit(1);
}
try {
  const items = loadNlEval();
  const rules = d.svc.service.deps.foundry.query;
  const { times, direct } = await evaluate("rules", d, (q) => rules.ask(d.tenant, q), items);
  const ask = summarize(times);
  const bare = summarize(direct);
  emit({
    bench: "foundry-nl/gateway-sql",
    metric: "p50_latency",
    value: round(bare.p50),
    unit: "ms",
    peer: null,
    ratio: null,
  });
  emit({
    bench: "foundry-nl/rules",
    metric: "p50_latency",
    value: round(ask.p50),
    unit: "ms",
    peer: "foundry-nl/gateway-sql",
    ratio: round(ask.p50 / bare.p50, 4),
  });
  const url = process.env.CAIRN_LLM_URL;
  const model = process.env.CAIRN_LLM_MODEL;
  if (url && model) {
    const llm = new FoundryQuery({
      lakehouse: d.lake,
      graph: d.graph,
      realtime: null,
      llm: new OpenAiChatModel({ url, model, apiKey: process.env.CAIRN_LLM_API_KEY }),
    });
    await evaluate("llm", d, (q) => llm.ask(d.tenant, q), items);
  } else {
    process.stderr.write("foundry-nl: CAIRN_LLM_URL/CAIRN_LLM_MODEL unset: the model planner is not measured\n");
  }
} finally {
  await d.close();
}
