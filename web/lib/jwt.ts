/** Reads (never verifies) the signed-in JWT's claims: the upload form needs tenant and user ids. */
import { session } from "./session.ts";

export function claims(): { sub?: string; tid?: string; email?: string } {
  const part = session().jwt?.split(".")[1];
  if (!part) return {};
  try {
    return JSON.parse(atob(part.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    return {};
  }
}
