/** SqlClient over PostgreSQL with Bun's built-in client (Bun.SQL, pooled). */
import { SQL } from "bun";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

/** Rewrites `?` placeholders to `$1..$n`, leaving quoted literals alone. */
export function toDollarParams(sql: string): string {
  let n = 0;
  let out = "";
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") {
      n++;
      out += `$${n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

type Runner = InstanceType<typeof SQL>;

class PgTx implements SqlClient {
  readonly dialect = "postgres" as const;
  constructor(protected readonly q: Runner) {}

  async all<T>(sql: string, params?: SqlParam[]): Promise<T[]> {
    const rows = await this.q.unsafe(toDollarParams(sql), (params ?? []) as unknown[]);
    return [...rows] as T[];
  }
  async get<T>(sql: string, params?: SqlParam[]): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }
  async run(sql: string, params?: SqlParam[]): Promise<{ changes: number }> {
    const r = await this.q.unsafe(toDollarParams(sql), (params ?? []) as unknown[]);
    return { changes: Number((r as unknown as { count?: number }).count ?? 0) };
  }
  async exec(sql: string): Promise<void> {
    await this.q.unsafe(sql);
  }
  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return fn(this);
  }
  async close(): Promise<void> {}
}

export class PostgresClient extends PgTx {
  private readonly pool: Runner;

  constructor(url: string, opts: { max?: number } = {}) {
    const pool = new SQL({ url, max: opts.max ?? 10, idleTimeout: 30 });
    super(pool);
    this.pool = pool;
  }

  override async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return (await this.pool.begin(async (tx) => fn(new PgTx(tx as unknown as Runner)))) as T;
  }

  override async close(): Promise<void> {
    await this.pool.close();
  }
}
