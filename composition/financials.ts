/**
 * Wires the financials area: the SQL fundamentals store (opened with the engines), the
 * research stores over the control plane's database, the xlsx renderer and the mailer,
 * behind one FinancialsService.
 */
import { openResearchStores } from "../adapters/financials/research.ts";
import { ExcelJsRenderer } from "../adapters/xlsx/index.ts";
import type { FinancialsStore, Mailer, ResearchStores } from "../domain/financials/ports.ts";
import { FinancialsService } from "../domain/financials/service.ts";
import type { SqlClient } from "../domain/ports.ts";

export function openFinancialsService(d: { store: FinancialsStore; sql: SqlClient; mailer: Mailer | null }): {
  service: FinancialsService;
  research: ResearchStores;
} {
  const research = openResearchStores(d.sql);
  const service = new FinancialsService({
    statements: d.store,
    segments: d.store,
    research,
    spreadsheets: new ExcelJsRenderer(),
    mailer: d.mailer,
  });
  return { service, research };
}
