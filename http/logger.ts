/** Structured JSON logs (pino). Requests log through a child carrying request and tenant ids. */
import pino, { type Logger } from "pino";

export function createLogger(level: string, base: Record<string, string> = {}): Logger {
  return pino({
    level,
    base: { service: "cairn", ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Credentials never reach the logs, whatever a caller passes along.
    redact: {
      paths: [
        "*.authorization",
        "*.Authorization",
        "*['x-api-key']",
        "*['x-collab-secret']",
        "*.password",
        "*.secret",
        "*.s3_secret_key_enc",
        "*.token",
        "*.api_key",
        "*.s3_access_key_id",
        "*.credentials",
      ],
      censor: "[redacted]",
    },
  });
}
