/**
 * The checks a training run and a tuning experiment share before anything is recorded or
 * queued (spec 4.9; issue 16): a ready dataset of the tenant, a configured lakehouse and
 * catalog, the target and feature columns in the dataset's table, and the lab's own input
 * checks (one class, all-null features, nothing usable). Each failure is the 4xx the caller
 * gets: 404 no dataset, 409 not ready or no table, 422 columns or the lab's refusal, 503 no
 * lakehouse.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import { lakehouseNamespace, type TenantRef } from "../../tenants/namespaces.ts";
import type { Dataset } from "../dataset.ts";
import type { DatasetStore, FoundryLabPort } from "../ports.ts";
import type { ProblemType } from "./model.ts";
import type { LabCatalog } from "./ports.ts";

export interface InputCheckDeps {
  datasets: Pick<DatasetStore, "getDataset">;
  lab: Pick<FoundryLabPort, "schemas" | "checkTraining"> | null;
  catalog: LabCatalog | null;
}

export interface InputRequest {
  dataset_id: string;
  target_column: string;
  feature_columns?: string[] | undefined;
  /** Anomaly runs: the column of known anomalies, checked by the lab with the rest. */
  label_column?: string | null | undefined;
}

export interface CheckedInput {
  dataset: Dataset;
  namespace: string;
  catalog: LabCatalog;
  /** The requested features without repeats; empty = every column but the target. */
  features: string[];
}

/** The dataset, 404 when the tenant has none of that id, 409 before it is ready. */
export async function readyDataset(deps: Pick<InputCheckDeps, "datasets">, t: TenantRef, datasetId: string) {
  const ds = await deps.datasets.getDataset(t.tenantId, datasetId);
  if (!ds) throw new AppError("not_found", `No dataset '${datasetId}'`);
  if (ds.status !== "ready") {
    throw new AppError(
      "conflict",
      `Dataset '${ds.name}' is not ready (status ${ds.status}): build it and wait for status ready`,
    );
  }
  return ds;
}

/**
 * Every check after the request's own shape: `problem` is the requested problem type already
 * validated by the caller (null = auto), passed to the lab's checks.
 */
export async function checkTrainingInput(
  deps: InputCheckDeps,
  t: TenantRef,
  req: InputRequest,
  problem: ProblemType | null,
  dataset?: Dataset,
): Promise<CheckedInput> {
  const ds = dataset ?? (await readyDataset(deps, t, req.dataset_id));
  const { lab, catalog } = deps;
  if (!lab) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
  if (!catalog) {
    throw new AppError(
      "unavailable",
      "Model training needs the lakehouse catalog (CAIRN_LAKEHOUSE_CATALOG_URI and CAIRN_LAKEHOUSE_WAREHOUSE)",
    );
  }
  const namespace = lakehouseNamespace(t.slug);
  const columns = (await lab.schemas(namespace))[ds.output_table];
  if (!columns) {
    throw new AppError("conflict", `Dataset '${ds.name}' has no table '${ds.output_table}': build it again`);
  }
  const names = new Set(columns.map((c) => c.name));
  const features = req.feature_columns ?? [];
  const issues: ValidationIssue[] = [];
  if (!names.has(req.target_column)) {
    issues.push({
      loc: ["body", "target_column"],
      msg: `Column '${req.target_column}' is not in dataset '${ds.name}'`,
      type: "value_error",
      input: req.target_column,
      ctx: { columns: [...names].slice(0, 200) },
    });
  }
  features.forEach((f, i) => {
    if (!names.has(f)) {
      issues.push({
        loc: ["body", "feature_columns", String(i)],
        msg: `Column '${f}' is not in dataset '${ds.name}'`,
        type: "value_error",
        input: f,
        ctx: {},
      });
    } else if (f === req.target_column) {
      issues.push({
        loc: ["body", "feature_columns", String(i)],
        msg: "The target column cannot also be a feature",
        type: "value_error",
        input: f,
        ctx: {},
      });
    }
  });
  if (issues.length) throw AppError.validation(issues);
  const unique = [...new Set(features)];
  // The lab's own checks (one class, all-null features, nothing usable) before anything is queued.
  await lab.checkTraining({
    namespace,
    table: ds.output_table,
    target_column: req.target_column,
    ...(unique.length ? { feature_columns: unique } : {}),
    problem_type: problem === "auto" ? null : problem,
    ...(req.label_column ? { label_column: req.label_column } : {}),
  });
  return { dataset: ds, namespace, catalog, features: unique };
}
