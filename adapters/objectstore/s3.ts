/**
 * ObjectStore on an S3-compatible store through Bun's built-in S3 client (SigV4). A PUT
 * replaces an object atomically, which is the publish step; put() then checks the stored
 * size against the file's. Readers that need a local file (DuckDB read_parquet; httpfs
 * is not available offline) get a download cached under `cacheDir`, keyed by the object's
 * ETag so a replaced object is fetched again.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { S3Client } from "bun";
import { checkObjectKey, type ObjectStore } from "../../domain/object-store.ts";

export interface S3ObjectStoreOptions {
  bucket: string;
  /** Key prefix inside the bucket (no leading or trailing slash); "" for the whole bucket. */
  prefix: string;
  /** Null for AWS itself. */
  endpoint: string | null;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** Local copies for readers. */
  cacheDir: string;
}

export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly opts: S3ObjectStoreOptions) {
    this.prefix = opts.prefix.replace(/^\/+|\/+$/g, "");
    if (this.prefix !== "") checkObjectKey(this.prefix);
    this.location = `s3://${opts.bucket}/${this.prefix}`.replace(/\/$/, "");
    this.client = new S3Client({
      bucket: opts.bucket,
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.accessKeyId ? { accessKeyId: opts.accessKeyId } : {}),
      ...(opts.secretAccessKey ? { secretAccessKey: opts.secretAccessKey } : {}),
    });
  }

  async put(key: string, file: string): Promise<{ bytes: number }> {
    const size = (await stat(file)).size;
    const full = this.full(key);
    await this.client.write(full, Bun.file(file));
    const stored = await this.client.stat(full);
    if (stored.size !== size) throw new Error(`S3 put of ${full}: stored ${stored.size} bytes of ${size}`);
    // Like a rename: the staged file is consumed.
    await rm(file, { force: true });
    return { bytes: size };
  }

  async stat(key: string): Promise<{ bytes: number } | null> {
    const s = await this.statRemote(key);
    return s ? { bytes: s.size } : null;
  }

  async localPath(key: string): Promise<string> {
    const remote = await this.statRemote(key);
    if (!remote) throw new Error(`no object ${this.full(key)}`);
    const path = join(this.opts.cacheDir, key);
    const tag = `${path}.etag`;
    const cached = await readFile(tag, "utf8").catch(() => null);
    const size = await stat(path).then(
      (s) => s.size,
      () => -1,
    );
    if (cached === remote.etag && size === remote.size) return path;
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${crypto.randomUUID()}.partial`;
    try {
      await Bun.write(partial, this.client.file(this.full(key)));
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
    await writeFile(tag, remote.etag);
    return path;
  }

  async delete(key: string): Promise<void> {
    await this.client.delete(this.full(key));
    const path = join(this.opts.cacheDir, key);
    await rm(path, { force: true });
    await rm(`${path}.etag`, { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const base = this.prefix === "" ? "" : `${this.prefix}/`;
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.client.list({
        prefix: `${base}${prefix}`,
        ...(continuationToken ? { continuationToken } : {}),
      });
      for (const o of page.contents ?? []) {
        // Some S3-compatible stores list folder markers ("a/b/"): not objects.
        if (!o.key.endsWith("/")) keys.push(o.key.slice(base.length));
      }
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
    return keys.sort();
  }

  private full(key: string): string {
    checkObjectKey(key);
    return this.prefix === "" ? key : `${this.prefix}/${key}`;
  }

  private async statRemote(key: string): Promise<{ size: number; etag: string } | null> {
    try {
      const s = await this.client.stat(this.full(key));
      return { size: s.size, etag: s.etag };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "NoSuchKey" || code === "NotFound" || code === "ERR_S3_FILE_NOT_FOUND") return null;
      throw err;
    }
  }
}
