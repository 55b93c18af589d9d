import { describe, expect, test } from "bun:test";
import { Extractor } from "./adapters/extract/index.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { UploadGate } from "./domain/documents/upload-gate.ts";

describe("loadConfig", () => {
  test("embedded profile when no engine URL is set", () => {
    const c = loadConfig({});
    expect(c.profile).toBe("embedded");
    expect(c.port).toBe(8080);
    expect(c.controlPlane.kind).toBe("sqlite");
    expect(c.queue.kind).toBe("embedded");
    expect(c.counters.kind).toBe("memory");
  });

  test("engine URLs move capabilities onto real engines", () => {
    const c = loadConfig({ DATABASE_URL: "postgres://u@h:5432/db", REDIS_URL: "redis://h:6379" });
    expect(c.profile).toBe("cluster");
    expect(c.controlPlane).toEqual({ kind: "postgres", url: "postgres://u@h:5432/db" });
    expect(c.queue).toEqual({ kind: "redis", url: "redis://h:6379" });
    expect(c.counters).toEqual({ kind: "redis", url: "redis://h:6379" });
  });

  test("mail is configured only with CAIRN_SMTP_URL; the From address is checked", () => {
    expect(loadConfig({}).mail).toBeNull();
    expect(loadConfig({ CAIRN_SMTP_URL: "smtp://127.0.0.1:2525" }).mail).toEqual({
      url: "smtp://127.0.0.1:2525",
      from: "Cairn <no-reply@cairn.local>",
    });
    expect(
      loadConfig({ CAIRN_SMTP_URL: "smtps://u:p@mail.example.com", CAIRN_MAIL_FROM: "a@b.example" }).mail?.from,
    ).toBe("a@b.example");
    expect(() => loadConfig({ CAIRN_SMTP_URL: "http://mail" })).toThrow(/CAIRN_SMTP_URL/);
    expect(() => loadConfig({ CAIRN_MAIL_FROM: "Cairn <a@b.example>\nBcc: x@y.example" })).toThrow(/CAIRN_MAIL_FROM/);
    expect(() => loadConfig({ CAIRN_MAIL_FROM: "not an address" })).toThrow(/CAIRN_MAIL_FROM/);
  });

  test("a bad value fails with a message naming the variable", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(
      /DATABASE_URL: must be a URL starting with postgres/,
    );
    expect(() => loadConfig({ CAIRN_JWT_SECRET: "short" })).toThrow(/CAIRN_JWT_SECRET: must be at least 32/);
    expect(() => loadConfig({ CAIRN_LOG_LEVEL: "loud" })).toThrow(/CAIRN_LOG_LEVEL/);
    expect(() => loadConfig({ CAIRN_TEST_FAULTS: "1", NODE_ENV: "production" })).toThrow(/CAIRN_TEST_FAULTS/);
  });

  test("start-up exits non-zero and names the variable", () => {
    const r = Bun.spawnSync([process.execPath, "main.ts"], {
      env: { ...process.env, PORT: "99999", CAIRN_LOG_LEVEL: "silent" },
      cwd: import.meta.dir,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("PORT");
  });
});

describe("SEC ingest configuration", () => {
  test("offline by default; online needs a user agent naming a contact e-mail", () => {
    const c = loadConfig({});
    expect(c.sec).toMatchObject({
      online: false,
      baseUrl: "https://data.sec.gov",
      maxRequestsPerSecond: 10,
      marketDataDir: null,
    });
    expect(() => loadConfig({ CAIRN_SEC_ONLINE: "1" })).toThrow(/CAIRN_SEC_USER_AGENT: required/);
    expect(() => loadConfig({ CAIRN_SEC_ONLINE: "1", CAIRN_SEC_USER_AGENT: "curl" })).toThrow(/CAIRN_SEC_USER_AGENT/);
    expect(() => loadConfig({ CAIRN_SEC_MAX_RPS: "11" })).toThrow(/CAIRN_SEC_MAX_RPS/);
    const on = loadConfig({ CAIRN_SEC_ONLINE: "1", CAIRN_SEC_USER_AGENT: "Acme Research ops@acme.example" });
    expect(on.sec).toMatchObject({ online: true, userAgent: "Acme Research ops@acme.example" });
  });
});

describe("document extraction configuration", () => {
  test("defaults; a vision model needs both URL and model", () => {
    expect(loadConfig({}).extraction).toEqual({ concurrency: 3, timeoutMs: 120_000, maxOcrPages: 50, vision: null });
    // One extraction thread per upload slot unless set.
    expect(loadConfig({ CAIRN_UPLOAD_CONCURRENCY: "5" }).extraction.concurrency).toBe(5);
    expect(loadConfig({ CAIRN_UPLOAD_CONCURRENCY: "5", CAIRN_EXTRACT_CONCURRENCY: "2" }).extraction.concurrency).toBe(
      2,
    );
    expect(() => loadConfig({ CAIRN_VISION_URL: "http://127.0.0.1:8000/v1" })).toThrow(/CAIRN_VISION_MODEL: required/);
    expect(() => loadConfig({ CAIRN_VISION_URL: "ftp://x", CAIRN_VISION_MODEL: "m" })).toThrow(/CAIRN_VISION_URL/);
    expect(() => loadConfig({ CAIRN_EXTRACT_CONCURRENCY: "-1" })).toThrow(/CAIRN_EXTRACT_CONCURRENCY/);
    const c = loadConfig({ CAIRN_VISION_URL: "http://127.0.0.1:8000/v1", CAIRN_VISION_MODEL: "qwen2.5-vl" });
    expect(c.extraction.vision).toEqual({
      url: "http://127.0.0.1:8000/v1",
      model: "qwen2.5-vl",
      apiKey: undefined,
      timeoutMs: 30_000,
    });
  });
});

describe("upload concurrency", () => {
  test("by default one tenant runs two uploads at once (one parses while the other embeds) and another tenant still gets a slot", async () => {
    const uploads = loadConfig({}).uploads;
    expect(uploads).toEqual({ concurrency: 3, maxQueued: 8, maxWaitMs: 30_000 });
    const gate = new UploadGate(uploads);
    const [a1, a2, a3] = [gate.acquire("a"), gate.acquire("a"), gate.acquire("a")];
    // A slow first file no longer holds the tenant's next one; the third waits.
    expect(gate.statsOf("a")).toEqual({ running: 2, queued: 1 });
    const b = gate.acquire("b");
    expect(gate.stats).toEqual({ running: 3, queued: 1 });
    for (const release of await Promise.all([a1, a2, b])) release();
    (await a3)();
    expect(gate.stats).toEqual({ running: 0, queued: 0 });
  });

  test("by default every upload slot has an extraction thread: a tenant's two uploads never keep another tenant's from one", async () => {
    const config = loadConfig({});
    const extractor = new Extractor({ concurrency: config.extraction.concurrency });
    try {
      // Two jobs of tenant a, then one of tenant b, handed out in one synchronous step (the pool
      // dispatches as it accepts), so no job can finish before the count: small text files do.
      const memo = (who: string) => new TextEncoder().encode(`tenant ${who}'s memo`);
      const jobs = [
        extractor.extract({ filename: "a1.txt", bytes: memo("a"), key: "a" }),
        extractor.extract({ filename: "a2.txt", bytes: memo("a"), key: "a" }),
        extractor.extract({ filename: "b.txt", bytes: memo("b"), key: "b" }),
      ];
      expect(extractor.load).toMatchObject({ running: 3, queued: 0 });
      await Promise.all(jobs);
    } finally {
      await extractor.close();
    }
  });
});
