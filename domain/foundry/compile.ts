/** Compiling a dataset against its tenant's namespace as it is now (used at create, build and in the job). */
import { AppError } from "../errors.ts";
import { lakehouseNamespace, type TenantRef } from "../tenants/namespaces.ts";
import type { DatasetSpec } from "./dataset.ts";
import type { FoundryLabPort } from "./ports.ts";
import { type CompileContext, type CompiledDataset, compileDataset } from "./sql.ts";

/** Graph rules the compiler uses (./graph/cypher.ts). */
export type GraphRules = Pick<CompileContext, "graphKey" | "checkGraph">;

export async function compileFor(
  deps: { lab: FoundryLabPort | null; graphRules: GraphRules },
  t: TenantRef,
  spec: DatasetSpec,
  output_table: string,
): Promise<CompiledDataset> {
  if (!deps.lab) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
  const namespace = lakehouseNamespace(t.slug);
  const schemas = await deps.lab.schemas(namespace);
  return compileDataset(spec, { namespace, output_table, schemas, ...deps.graphRules });
}
