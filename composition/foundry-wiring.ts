/** What the Foundry area is opened with (composition/foundry.ts and its parts). */
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { FinancialsStore } from "../domain/financials/ports.ts";
import type { GraphRules } from "../domain/foundry/compile.ts";
import type { GraphPort } from "../domain/foundry/ports.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";
import type { ControlPlaneStore, JobQueue } from "../domain/ports.ts";
import type { RealtimeTablesPort, RealtimeTieringView, TieringStateStore } from "../domain/rtdb/ports.ts";

export interface FoundryWiring {
  config: Config;
  store: ControlPlaneStore;
  queue: JobQueue;
  lakehouse: LakehousePort | null;
  graph: GraphPort | null;
  graphRules: GraphRules;
  realtime: { tables: RealtimeTablesPort; view: RealtimeTieringView; state: TieringStateStore } | null;
  logger: Logger;
  /** The public financial data (the ci.* read models). */
  financials?: FinancialsStore | null;
  /** The document index (dm.documents, dm.chunks). */
  documentIndex?: unknown;
}
