/**
 * InferencePort over MLServer's Open Inference Protocol v2 REST API (docs/foundry-serving.md).
 * A load writes `<repository>/<name>/model-settings.json` (the lab runtime, the artifact and
 * its sha256, the version) and calls the repository API, so MLServer loads it again by itself
 * when it restarts. MLServer binds 127.0.0.1: only this service talks to it.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../../domain/errors.ts";
import type { InferencePort, InferInput, InferOutput, ServedModel } from "../../domain/foundry/serving/ports.ts";

/** The runtime class MLServer imports from the lab package (lab/src/lab/serving/runtime.py). */
export const RUNTIME = "lab.serving.runtime.CairnModel";

export interface MlserverOptions {
  url: string;
  /** MLServer's model repository folder (the one `python -m lab.serving.serve` was started on). */
  repository: string;
  loadTimeoutMs?: number;
  inferTimeoutMs?: number;
}

export class MlserverClient implements InferencePort {
  private readonly base: string;

  constructor(private readonly opts: MlserverOptions) {
    this.base = opts.url.replace(/\/+$/, "");
  }

  async load(m: ServedModel): Promise<void> {
    const dir = join(this.opts.repository, m.name);
    mkdirSync(dir, { recursive: true });
    const settings = {
      name: m.name,
      implementation: RUNTIME,
      parameters: { uri: m.artifactPath, version: String(m.version), extra: { sha256: m.artifactSha256 } },
    };
    // Written whole, then renamed: MLServer never reads half a file at its start.
    const tmp = join(dir, ".model-settings.json.tmp");
    writeFileSync(tmp, JSON.stringify(settings, null, 2));
    renameSync(tmp, join(dir, "model-settings.json"));
    await this.call(`/v2/repository/models/${encodeURIComponent(m.name)}/load`, {}, this.opts.loadTimeoutMs ?? 180_000);
  }

  async ready(name: string): Promise<boolean> {
    try {
      const res = await fetch(`${this.base}/v2/models/${encodeURIComponent(name)}/ready`, {
        signal: AbortSignal.timeout(5_000),
      });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  async infer(name: string, inputs: InferInput[]): Promise<InferOutput[]> {
    const body = (await this.call(
      `/v2/models/${encodeURIComponent(name)}/infer`,
      { inputs },
      this.opts.inferTimeoutMs ?? 60_000,
    )) as { outputs?: InferOutput[] };
    return body.outputs ?? [];
  }

  private async call(path: string, body: unknown, timeoutMs: number): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new AppError("unavailable", `The inference server is unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (res.ok) return text ? (JSON.parse(text) as unknown) : {};
    let detail = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: string; detail?: unknown };
      detail = parsed.error ?? (typeof parsed.detail === "string" ? parsed.detail : detail);
    } catch {
      // not JSON: the text as it came
    }
    if (res.status === 400 || res.status === 422)
      throw new AppError("bad_request", `The model refused the rows: ${detail}`);
    if (res.status >= 500 && res.status !== 500)
      throw new AppError("unavailable", `The inference server answered ${res.status}: ${detail}`);
    throw new AppError("internal", `The inference server answered ${res.status}: ${detail}`);
  }
}
