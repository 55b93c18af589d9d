/** Natural-language data access (POST /v1/foundry/query): plans a read-only query over the tenant's data. */
import type { TenantRef } from "../../tenants/namespaces.ts";

export class FoundryQuery {
  /** Answers the question, or says plainly why it cannot. */
  async ask(_t: TenantRef, _question: string): Promise<unknown> {
    throw new Error("not implemented");
  }
}
