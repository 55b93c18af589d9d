/** Redis test helpers: suites use a unique key prefix and remove their keys afterwards. */
import { Redis } from "ioredis";

/** Deletes every key under `prefix` (keys expire anyway; this keeps the shared server tidy). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const admin = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await admin.quit();
  }
}
