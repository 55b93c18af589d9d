/**
 * Deployed models (domain/foundry/serving/): the registry and prediction log in the control
 * plane, MLServer as the inference server when CAIRN_FOUNDRY_INFERENCE_URL/_REPOSITORY are set,
 * the ONNX fast path in the service unless CAIRN_FOUNDRY_FAST_PATH=off (docs/foundry-onnx.md),
 * the language model for explanations when one is configured. Deployments left `deploying` by
 * a stopped service are loaded again at once.
 */
import { SqlDeploymentStore } from "../adapters/controlplane/foundry-serving-store.ts";
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import { S3ObjectStore } from "../adapters/objectstore/index.ts";
import { OnnxScorer } from "../adapters/onnx/scorer.ts";
import { MlserverClient } from "../adapters/serving/mlserver-client.ts";
import type { Config } from "../config.ts";
import type { FoundryModels } from "../domain/foundry/models/service.ts";
import { DeploymentLoader } from "../domain/foundry/serving/loader.ts";
import { FoundryServing, type ModelRunView } from "../domain/foundry/serving/service.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

export function openFoundryServing(d: FoundryWiring, models: FoundryModels): FoundryServing {
  const store = new SqlDeploymentStore(d.store.sql);
  const cfg = d.config.foundry.inference;
  const inference = cfg ? new MlserverClient({ url: cfg.url, repository: cfg.repository }) : null;
  const logger = d.logger.child({ area: "foundry-serving" });
  const loader = inference ? new DeploymentLoader({ store, inference, logger }) : null;
  const serving = new FoundryServing({
    models: { get: async (t, id) => (await models.get(t, id)) as ModelRunView },
    store,
    inference,
    loader,
    fast: inference && d.config.foundry.fastPath === "onnx" ? openFastScorer(d.config) : null,
    llm: d.config.llm ? new OpenAiChatModel(d.config.llm) : null,
    logger,
  });
  void serving.resume().catch((err: unknown) => logger.error({ err }, "foundry serving: resuming deployments failed"));
  return serving;
}

/**
 * One model process (the service shares its cores with the lab and MLServer; a batch of 1,000
 * rows is one chunk anyway). The lab writes the .onnx next to the joblib: a local path, or
 * s3://<bucket>/<prefix>/models/… read through the object store's local cache.
 */
function openFastScorer(config: Config): OnnxScorer {
  const objects = config.objectStore;
  if (objects.kind !== "s3") return new OnnxScorer({ processes: 1 });
  const s3 = new S3ObjectStore(objects);
  const root = `s3://${[objects.bucket, objects.prefix].filter(Boolean).join("/")}/`;
  const keyOf = (p: string) => (p.startsWith(root) ? p.slice(root.length) : p);
  return new OnnxScorer({
    processes: 1,
    load: async (p) => new Uint8Array(await Bun.file(await s3.localPath(keyOf(p))).arrayBuffer()),
  });
}
