/**
 * The embedding models `scripts/setup.sh --models` installs (adapters/embeddings). Suites that
 * load them fail under CI when they are missing, and are skipped locally with a note, like the
 * engine suites (test/engines.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defaultModelsDir } from "../adapters/embeddings/index.ts";

export function installedModelsDir(names: readonly string[], suite: string): string | undefined {
  const dir = defaultModelsDir();
  const missing = names.filter(
    (n) => !existsSync(join(dir, n, "model.onnx")) || !existsSync(join(dir, n, "tokenizer.json")),
  );
  if (missing.length === 0) return dir;
  const why = `${missing.join(", ")} not installed in ${dir} (run scripts/setup.sh --models)`;
  if (process.env.CI) throw new Error(`the ${suite} suites need the embedding models under CI: ${why}`);
  process.stderr.write(`[skip] ${suite}: ${why}\n`);
  return undefined;
}
