/**
 * Installation secrets: taken from configuration when set, otherwise generated once and
 * kept in the control plane's settings table (so every instance and the CLI agree).
 */
import type { Config } from "../../config.ts";
import type { ControlPlaneStore } from "../../domain/ports.ts";

export interface InstallationSecrets {
  jwtSecret: string;
  adminApiKey: string;
  collabSecret: string;
}

const random = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

export async function loadInstallationSecrets(config: Config, store: ControlPlaneStore): Promise<InstallationSecrets> {
  const pick = async (configured: string | undefined, key: string, make: () => string) =>
    configured ?? (await store.putSettingIfAbsent(key, make()));
  return {
    jwtSecret: await pick(config.jwt.secret, "secret.jwt_hs256", () => random(48)),
    adminApiKey: await pick(config.adminApiKey, "secret.admin_api_key", () => `cairn_admin_${random(32)}`),
    collabSecret: await pick(config.collabSecret, "secret.collab", () => random(32)),
  };
}
