/**
 * Engine URLs for suites that need a real engine (started by scripts/engines.sh).
 * Under CI a missing engine fails the suite; locally it is skipped with a loud note.
 */
export type EngineName = "postgres" | "redis" | "questdb" | "opensearch" | "s3" | "neo4j";

const VARS: Record<EngineName, string> = {
  postgres: "CAIRN_TEST_DATABASE_URL",
  redis: "CAIRN_TEST_REDIS_URL",
  questdb: "CAIRN_TEST_QUESTDB_URL",
  opensearch: "CAIRN_TEST_OPENSEARCH_URL",
  /** http://key:secret@host:port/bucket of an S3-compatible store (scripts/s3proxy.sh). */
  s3: "CAIRN_TEST_S3_URL",
  /** bolt://neo4j:password@host:port of Neo4j 5.26 Community (scripts/neo4j.sh). */
  neo4j: "CAIRN_TEST_NEO4J_URL",
};

export function engineUrl(name: EngineName): string | undefined {
  const v = process.env[VARS[name]];
  if (v) return v;
  if (process.env.CI) {
    throw new Error(`${VARS[name]} is not set: the ${name} suites must run under CI (scripts/engines.sh start)`);
  }
  process.stderr.write(`[skip] ${name} suites: ${VARS[name]} is not set (run scripts/engines.sh start)\n`);
  return undefined;
}

/** A name no other test uses, for tables, queues, key prefixes and schemas. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

/** Creates an empty Postgres database for one suite; returns its URL and a drop function. */
export async function freshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { SQL } = await import("bun");
  const name = uniqueName("cairn_t");
  const admin = new SQL({ url: baseUrl, max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
