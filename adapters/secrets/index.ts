export { KEY_FILE, type LoadedKeyRing, loadKeyRing } from "./keyring.ts";
