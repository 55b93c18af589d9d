/** What every operator command gets: the parsed flags, the configuration, the control plane. */
import type { Config } from "../config.ts";
import type { ControlPlaneStore } from "../domain/ports.ts";
import type { InstallationSecrets } from "../http/auth/secrets.ts";

export interface CliFlags {
  email?: string;
  tier?: string;
  label?: string;
  name?: string;
  dir?: string;
  "data-dir"?: string;
  "market-dir"?: string;
  force?: boolean;
  online?: boolean;
  cik?: string;
  tenant?: string;
  role?: string;
}

export interface CliContext {
  command: string;
  flags: CliFlags;
  config: Config;
  store: ControlPlaneStore;
  secrets: InstallationSecrets;
}

export type Command = (ctx: CliContext) => Promise<void>;

/** Refuses with a message on stderr and exit status 2. */
export function fail(msg: string): never {
  process.stderr.write(`cairn: ${msg}\n`);
  process.exit(2);
}

/** Values go to stdout alone, so `$(bun run cli token --email a@b.c)` works. */
export function print(value: string): void {
  process.stdout.write(`${value}\n`);
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}
