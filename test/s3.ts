/** The S3-compatible test store (scripts/s3proxy.sh) as an ObjectStore. */
import { S3ObjectStore } from "../adapters/objectstore/index.ts";

/** `http://key:secret@host:port/bucket` (CAIRN_TEST_S3_URL) as an S3ObjectStore under `prefix`. */
export function s3StoreFromUrl(url: string, prefix: string, cacheDir: string): S3ObjectStore {
  const u = new URL(url);
  return new S3ObjectStore({
    bucket: u.pathname.replace(/^\//, ""),
    prefix,
    endpoint: `${u.protocol}//${u.host}`,
    region: "us-east-1",
    accessKeyId: decodeURIComponent(u.username),
    secretAccessKey: decodeURIComponent(u.password),
    cacheDir,
  });
}
