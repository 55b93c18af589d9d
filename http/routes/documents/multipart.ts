/**
 * Streams a multipart/form-data request through busboy without buffering more than the
 * one file it keeps (at most `maxFileBytes`). The moment the file passes the limit, or a
 * second file starts, reading stops (the request stream is cancelled) and the error is
 * thrown, so a 60 MB upload is refused after ~50 MB, not after all of it arrived.
 *
 * A body that trickles in (slow-loris) is cut off too: after `graceMs`, the body must keep
 * arriving at `minBytesPerSecond` on average and arrive whole within `maxMs`; otherwise
 * reading stops and SlowUpload is thrown (answered 408 with Connection: close).
 */
import busboy from "busboy";
import { AppError, type ValidationIssue } from "../../../domain/errors.ts";

export interface FormFile {
  field: string;
  filename: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface ParsedForm {
  /** Every value of every text field, in arrival order. */
  fields: Map<string, string[]>;
  file: FormFile | null;
}

export interface MultipartLimits {
  maxFileBytes: number;
  /** Text fields at most. */
  maxFields: number;
  /** Bytes per text field value. */
  maxFieldBytes: number;
  /** Time before the average-rate rule applies (default 5 s: inside Bun's 10 s idle timeout). */
  graceMs?: number;
  /** Average body rate required after `graceMs` (default 16 KiB/s: 50 MB in under an hour). */
  minBytesPerSecond?: number;
  /** The whole body arrives within this (default 15 minutes). */
  maxMs?: number;
}

/** The body arrived too slowly: answered 408, and the connection is closed. */
export class SlowUpload extends Error {}

/** Bytes of multipart framing and text fields tolerated on top of the file in Content-Length. */
export function maxBodyBytes(l: MultipartLimits): number {
  return l.maxFileBytes + l.maxFields * (l.maxFieldBytes + 512) + 64 * 1024;
}

export function tooLarge(maxFileBytes: number): AppError {
  const mb = Math.round(maxFileBytes / (1024 * 1024));
  // Connection: close, so the client stops sending the rest of a body nobody will read.
  return new AppError("payload_too_large", `The file exceeds the upload limit of ${mb} MB`, undefined, {
    Connection: "close",
  });
}

function invalid(loc: string[], msg: string, type: string, input: unknown = null, ctx: Record<string, unknown> = {}) {
  const issue: ValidationIssue = { loc, msg, type, input, ctx };
  return AppError.validation([issue]);
}

/** What the parser has collected so far, and the first refusal (later ones are dropped). */
interface PartsState {
  fields: Map<string, string[]>;
  file: FormFile | null;
  failure: AppError | null;
}

function fail(state: PartsState, e: AppError): void {
  state.failure ??= e;
}

export async function readMultipart(req: Request, limits: MultipartLimits): Promise<ParsedForm> {
  const contentType = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw invalid(["header", "content-type"], "Expected a multipart/form-data body", "multipart_expected", contentType);
  }
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBodyBytes(limits)) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(limits.maxFileBytes);
  }
  if (!req.body) throw invalid(["body", "file"], "Field required", "missing");

  const bb = openParser(contentType, limits);
  const state: PartsState = { fields: new Map(), file: null, failure: null };
  collectParts(bb, limits, state);
  const reader = req.body.getReader();
  const slow = await pump(reader, bb, limits, state);
  if (slow || state.failure) {
    await reader.cancel().catch(() => {});
    bb.destroy();
    throw slow ?? state.failure;
  }
  return { fields: state.fields, file: state.file };
}

/** A busboy parser bounded by `limits` (422 when the content type's boundary is unusable). */
function openParser(contentType: string, limits: MultipartLimits): busboy.Busboy {
  try {
    return busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: {
        // One byte over the limit is enough to know the file is too large.
        fileSize: limits.maxFileBytes + 1,
        files: 2,
        fields: limits.maxFields,
        fieldSize: limits.maxFieldBytes,
        parts: limits.maxFields + 2,
      },
    });
  } catch (err) {
    throw invalid(["header", "content-type"], (err as Error).message, "multipart_invalid", contentType);
  }
}

/** Collects the fields and the one file as busboy emits them; a refusal is kept in `state.failure`. */
function collectParts(bb: busboy.Busboy, limits: MultipartLimits, state: PartsState): void {
  // busboy reports a part without a name (or name="") as undefined: it is the empty name.
  bb.on("field", (rawName, value, info) => {
    const name = rawName ?? "";
    if (info.valueTruncated) {
      fail(
        state,
        invalid(
          ["body", name],
          `String should have at most ${limits.maxFieldBytes} characters`,
          "string_too_long",
          null,
          {
            max_length: limits.maxFieldBytes,
          },
        ),
      );
      return;
    }
    const list = state.fields.get(name) ?? [];
    list.push(value);
    state.fields.set(name, list);
  });
  bb.on("file", (rawName, stream, info) => {
    const name = rawName ?? "";
    // Destroying the parser on a refusal ends open file streams with an error: expected, not a crash.
    stream.on("error", () => {});
    if (state.file !== null) {
      stream.resume();
      fail(state, invalid(["body", name], "Only one file may be uploaded per request", "too_many_files"));
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    const current: FormFile = {
      field: name,
      filename: info.filename ?? "",
      mimeType: info.mimeType,
      bytes: new Uint8Array(),
    };
    state.file = current;
    stream.on("data", (d: Buffer) => {
      size += d.length;
      if (size > limits.maxFileBytes) {
        parts.length = 0;
        fail(state, tooLarge(limits.maxFileBytes));
        return;
      }
      parts.push(d);
    });
    stream.on("limit", () => fail(state, tooLarge(limits.maxFileBytes)));
    stream.on("end", () => {
      if (size <= limits.maxFileBytes) current.bytes = new Uint8Array(Buffer.concat(parts, size));
    });
  });
  bb.on("fieldsLimit", () =>
    fail(state, invalid(["body"], `At most ${limits.maxFields} form fields are accepted`, "too_many_fields")),
  );
  bb.on("partsLimit", () => fail(state, invalid(["body"], "Too many form parts", "too_many_fields")));
}

/**
 * Feeds the body to the parser until it ends or a part is refused; the SlowUpload when the
 * body arrived too slowly (the watchdog then cancelled the reader), else null.
 */
async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  bb: busboy.Busboy,
  limits: MultipartLimits,
  state: PartsState,
): Promise<SlowUpload | null> {
  const finished = new Promise<void>((resolve, reject) => {
    bb.once("close", () => resolve());
    // `on`, not `once`: a second error (e.g. during destroy) must not become an uncaught one.
    bb.on("error", (err) => reject(err));
  });
  // A rejection before we await it must not surface as an unhandled rejection.
  finished.catch(() => {});

  const started = Date.now();
  const graceMs = limits.graceMs ?? 5_000;
  const minRate = limits.minBytesPerSecond ?? 16 * 1024;
  const maxMs = limits.maxMs ?? 15 * 60_000;
  let received = 0;
  let slow: SlowUpload | null = null;
  // A read that never returns (bytes trickling or none at all) is ended by cancelling the reader.
  const watchdog = setInterval(
    () => {
      const elapsed = Date.now() - started;
      const rate = received / (elapsed / 1000);
      if (elapsed > maxMs || (elapsed > graceMs && rate < minRate)) {
        slow = new SlowUpload(
          `The upload body arrived too slowly (${received} bytes in ${Math.round(elapsed / 1000)} s; at least ` +
            `${Math.round(minRate / 1024)} KiB/s is needed, and at most ${Math.round(maxMs / 1000)} s in all)`,
        );
        reader.cancel().catch(() => {});
      }
    },
    Math.min(1000, graceMs),
  );
  try {
    for (;;) {
      if (state.failure || slow) break;
      const { done, value } = await reader.read();
      if (slow) break;
      if (done) {
        bb.end();
        break;
      }
      received += value.byteLength;
      if (!bb.write(value) && !state.failure) {
        await new Promise<void>((resolve) => {
          const go = () => {
            bb.off("drain", go);
            bb.off("error", go);
            resolve();
          };
          bb.on("drain", go);
          bb.on("error", go);
        });
      }
    }
    if (!state.failure && !slow) await finished;
  } catch (err) {
    if (!state.failure && !slow) {
      // A malformed body (busboy) or a client that went away mid-upload.
      fail(state, invalid(["body"], `Malformed multipart body: ${(err as Error).message}`, "multipart_invalid"));
    }
  }
  clearInterval(watchdog);
  return slow;
}
