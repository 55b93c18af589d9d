/**
 * Deployed models (domain/foundry/serving/): the registry and prediction log in the control
 * plane, MLServer as the inference server when CAIRN_FOUNDRY_INFERENCE_URL/_REPOSITORY are set,
 * the language model for explanations when one is configured. Deployments left `deploying` by
 * a stopped service are loaded again at once.
 */
import { SqlDeploymentStore } from "../adapters/controlplane/foundry-serving-store.ts";
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import { MlserverClient } from "../adapters/serving/mlserver-client.ts";
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
    llm: d.config.llm ? new OpenAiChatModel(d.config.llm) : null,
    logger,
  });
  void serving.resume().catch((err: unknown) => logger.error({ err }, "foundry serving: resuming deployments failed"));
  return serving;
}
