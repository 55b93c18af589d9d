/**
 * The background side of a deploy (spec 3.4: deploying -> active "within a few seconds"): a
 * bounded in-process queue that loads each deployment into the inference server, a few at a
 * time, and records the outcome. A deploy never waits for it. The work is idempotent (MLServer
 * loads a model that is already loaded again), so a restart simply enqueues every row still
 * `deploying` (FoundryServing.resume). Also the KServe manifest of a deployment (at scale).
 */
import type { Logger } from "pino";
import { AppError } from "../../errors.ts";
import type { Deployment } from "./model.ts";
import { servedName } from "./model.ts";
import type { DeploymentStore, InferencePort } from "./ports.ts";

/** Deploys waiting at most (beyond it: 503, try again). */
export const LOAD_QUEUE_MAX = 64;
/** Loads running at once. */
export const LOAD_CONCURRENCY = 2;
/** Tries of one load when the server cannot be reached (it may be starting): 1 s, 2 s, 4 s, ... apart. */
export const LOAD_ATTEMPTS = 6;

export class DeploymentLoader {
  private readonly pending: Deployment[] = [];
  private running = 0;
  private closed = false;

  constructor(
    private readonly deps: { store: DeploymentStore; inference: InferencePort; logger: Logger },
    private readonly opts: { retryBaseMs?: number } = {},
  ) {}

  /** 503 when the queue is full (before a registry row is written). */
  checkCapacity(): void {
    if (this.pending.length >= LOAD_QUEUE_MAX) {
      throw new AppError("unavailable", "Too many deployments are loading; try again shortly", undefined, {
        "Retry-After": "5",
      });
    }
  }

  enqueue(d: Deployment): void {
    if (this.closed) return;
    this.pending.push(d);
    this.drain();
  }

  /** Stops taking work; loads in flight finish on their own. */
  close(): void {
    this.closed = true;
    this.pending.length = 0;
  }

  private drain(): void {
    while (!this.closed && this.running < LOAD_CONCURRENCY && this.pending.length) {
      const d = this.pending.shift() as Deployment;
      this.running++;
      void this.load(d).finally(() => {
        this.running--;
        this.drain();
      });
    }
  }

  private async load(d: Deployment): Promise<void> {
    const { store, inference, logger } = this.deps;
    const served = {
      name: servedName(d),
      version: d.version,
      artifactPath: d.artifact_path,
      artifactSha256: d.artifact_sha256,
    };
    let error: string | null = null;
    for (let attempt = 1; attempt <= LOAD_ATTEMPTS && !this.closed; attempt++) {
      try {
        await inference.load(served);
        error = null;
        break;
      } catch (err) {
        error = (err as Error).message;
        // Only an unreachable server is worth waiting for; a model that fails to load stays failed.
        if (!(err instanceof AppError && err.code === "unavailable")) break;
        await Bun.sleep((this.opts.retryBaseMs ?? 1000) * 2 ** (attempt - 1));
      }
    }
    if (this.closed) return;
    try {
      // Only the version this load was for: a redeploy that came meanwhile has its own load.
      const current = await store.getDeployment(d.tenant_id, d.id);
      if (!current || current.version !== d.version) return;
      await store.updateDeployment(
        d.tenant_id,
        d.id,
        error ? { status: "failed", error } : { status: "active", error: null },
        ["deploying"],
      );
      logger.info({ deployment: d.id, name: served.name, version: d.version, error }, "foundry deployment loaded");
    } catch (err) {
      logger.error({ err, deployment: d.id }, "foundry deployment: recording the outcome failed");
    }
  }
}

/**
 * The KServe InferenceService of a deployment (raw deployment mode: a plain Deployment and
 * Service, no serverless cold starts; spec 3.4) on the same MLServer runtime and artifact.
 * The `cairn-mlserver` ServingRuntime is the lab's serve image (docs/foundry-serving.md).
 */
export function deploymentManifest(d: Deployment, namespace: string) {
  const local = !d.artifact_path.startsWith("s3://");
  // A local artifact lives under <object store>/models/<tenant>/<sha>.joblib: at scale the same
  // relative path on the models volume.
  const at = d.artifact_path.lastIndexOf("/models/");
  const storageUri = local
    ? `pvc://cairn-models/${at >= 0 ? d.artifact_path.slice(at + 1) : d.artifact_path.replace(/^\/+/, "")}`
    : d.artifact_path;
  return {
    apiVersion: "serving.kserve.io/v1beta1",
    kind: "InferenceService",
    metadata: {
      name: d.model_name,
      namespace,
      annotations: { "serving.kserve.io/deploymentMode": "RawDeployment" },
      labels: {
        "cairn.io/tenant": d.tenant_id,
        "cairn.io/registry-id": d.id,
        "cairn.io/model-id": d.model_id,
        "cairn.io/version": String(d.version),
      },
    },
    spec: {
      predictor: {
        minReplicas: 1,
        model: {
          modelFormat: { name: "cairn-lab", version: "1" },
          runtime: "cairn-mlserver",
          protocolVersion: "v2",
          storageUri,
          env: [
            { name: "MLSERVER_MODEL_NAME", value: servedName(d) },
            { name: "MLSERVER_MODEL_IMPLEMENTATION", value: "lab.serving.runtime.CairnModel" },
            { name: "MLSERVER_MODEL_VERSION", value: String(d.version) },
            { name: "MLSERVER_MODEL_EXTRA", value: JSON.stringify({ sha256: d.artifact_sha256 }) },
          ],
        },
      },
    },
  };
}
