/**
 * The agent rules without I/O: which requests are refused and with which field, cron
 * parsing and next fires (croner), which agents the scheduler fires, the alert comparison,
 * the deduplication key and window, and the payloads.
 */
import { describe, expect, test } from "bun:test";
import { alertScore, emailMessage, entityKey, exceeds, slackPayload, windowStart } from "./alerts.ts";
import { type AgentRequest, agentIssues, cronError, isScheduled, nextFire } from "./model.ts";

const fields = (req: AgentRequest) => agentIssues(req).map((i) => i.loc[1]);
const alert = (over: Partial<AgentRequest> = {}): AgentRequest => ({
  name: "watch",
  agent_type: "alert",
  alert_threshold: 0.7,
  alert_channel: "slack",
  alert_webhook: "https://hooks.example.test/services/T/B/X",
  ...over,
});

describe("agent validation", () => {
  test("a predict agent needs only a name", () => {
    expect(agentIssues({ name: "p" })).toEqual([]);
    expect(fields({ name: "   " })).toEqual(["name"]);
    // Postgres text cannot hold NUL: refused with the field named, not a failed insert.
    expect(fields({ name: "a\u0000b" })).toEqual(["name"]);
    expect(fields({ name: "a", description: "x\u0000" })).toEqual(["description"]);
  });

  test("alert agents need threshold, channel and a webhook of the channel's kind", () => {
    expect(agentIssues(alert())).toEqual([]);
    expect(fields(alert({ alert_threshold: null }))).toEqual(["alert_threshold"]);
    expect(fields(alert({ alert_channel: null }))).toEqual(["alert_channel"]);
    expect(fields(alert({ alert_webhook: null }))).toEqual(["alert_webhook"]);
    expect(fields(alert({ alert_webhook: "ftp://x.test/hook" }))).toEqual(["alert_webhook"]);
    expect(agentIssues(alert({ alert_channel: "email", alert_webhook: "risk@bank.test" }))).toEqual([]);
    expect(fields(alert({ alert_channel: "email", alert_webhook: "https://x.test" }))).toEqual(["alert_webhook"]);
    // A scheduled alert scores an entity.
    expect(fields(alert({ schedule_cron: "*/5 * * * *" }))).toEqual(["entity"]);
  });

  test("score and batch agents need a valid cron and what they score", () => {
    expect(fields({ name: "s", agent_type: "score", entity: { rows: [{ x: 1 }] } })).toEqual(["schedule_cron"]);
    const bad = agentIssues({ name: "s", agent_type: "score", schedule_cron: "* 25 * * *", entity: { rows: [{}] } });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ loc: ["body", "schedule_cron"], type: "cron_error" });
    expect(bad[0]?.msg).toContain("hour");
    expect(fields({ name: "b", agent_type: "batch", schedule_cron: "0 2 * * *" })).toEqual(["entity"]);
    expect(
      agentIssues({ name: "b", agent_type: "batch", schedule_cron: "0 2 * * *", entity: { table: "deals" } }),
    ).toEqual([]);
    expect(fields({ name: "b", agent_type: "batch", schedule_cron: "0 2 * * *", entity: { table: "Deals;" } })).toEqual(
      ["entity"],
    );
    expect(
      fields({ name: "s", agent_type: "score", schedule_cron: "0 * * * *", entity: { table: "t", key_column: "id" } }),
    ).toEqual(["entity"]);
    expect(
      fields({
        name: "s",
        agent_type: "score",
        schedule_cron: "0 * * * *",
        entity: { table: "t", key_column: "id", key: "x' OR 1=1 --" },
      }),
    ).toEqual(["entity"]);
  });

  test("cron: croner's own errors; next fires; which agents are scheduled", () => {
    expect(cronError("*/15 * * * *")).toBeNull();
    expect(cronError("not a cron")).not.toBeNull();
    expect(nextFire("*/15 * * * *", new Date("2026-11-25T20:07:30Z"))?.toISOString()).toBe("2026-11-25T20:15:00.000Z");
    expect(nextFire("*/2 * * * * *", new Date("2026-11-25T20:00:00.000Z"))?.toISOString()).toBe(
      "2026-11-25T20:00:02.000Z",
    );
    expect(isScheduled({ agent_type: "predict", schedule_cron: "* * * * *", entity: null })).toBe(false);
    expect(isScheduled({ agent_type: "alert", schedule_cron: "* * * * *", entity: null })).toBe(false);
    expect(isScheduled({ agent_type: "alert", schedule_cron: "* * * * *", entity: { rows: [] } })).toBe(true);
    expect(isScheduled({ agent_type: "batch", schedule_cron: "* * * * *", entity: { table: "t" } })).toBe(true);
  });
});

describe("alert rules", () => {
  test("exceeds is strict; regression values count when there is no score", () => {
    expect(exceeds({ score: 0.8 }, 0.8)).toBeNull();
    expect(exceeds({ score: 0.81 }, 0.8)).toBe(0.81);
    expect(exceeds({ value: 120 }, 100)).toBe(120);
    expect(alertScore({ label: 1 })).toBeNull();
  });

  test("the entity: the key column's value, else a digest of the row (key order ignored)", () => {
    expect(entityKey({ id: 7, x: 0.9 }, "id")).toBe("id=7");
    const a = entityKey({ a: 1, b: "x" }, undefined);
    expect(a).toMatch(/^row:[0-9a-f]{16}$/);
    expect(entityKey({ b: "x", a: 1 }, undefined)).toBe(a);
    expect(entityKey({ a: 2, b: "x" }, undefined)).not.toBe(a);
    expect(entityKey({ a: 1 }, "id")).toMatch(/^row:/);
    expect(entityKey({ id: "a\u0000b" }, "id")).toBe("id=a\uFFFDb");
  });

  test("windows are fixed and aligned: the same window within it, the next after it", () => {
    const hour = 3_600_000;
    expect(windowStart(new Date("2026-11-25T20:59:59Z"), hour)).toBe("2026-11-25T20:00:00.000Z");
    expect(windowStart(new Date("2026-11-25T21:00:00Z"), hour)).toBe("2026-11-25T21:00:00.000Z");
  });

  test("payloads: Slack-compatible text and blocks; an e-mail naming agent, model and entity", () => {
    const facts = {
      agent: { id: "a1", name: "fraud", registry_id: "reg-9", alert_threshold: 0.3 },
      entity_key: "txn=42",
      score: 0.91,
      window_start: "2026-11-25T20:00:00.000Z",
    };
    const slack = slackPayload(facts);
    expect(slack.text).toBe('Cairn alert: agent "fraud" scored txn=42 at 0.9100, above its threshold 0.3');
    expect(slack.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: slack.text } });
    const mail = emailMessage(facts);
    expect(mail.subject).toBe("Cairn alert: fraud");
    expect(mail.text).toContain("Model: reg-9");
    expect(mail.text).toContain("Entity: txn=42");
  });
});
