import { join } from "node:path";

import { LocalObjectStore } from "../../adapters/objectstore/index.ts";
import { engineUrl } from "../engines.ts";
import { s3StoreFromUrl } from "../s3.ts";
import { runObjectStoreContract } from "./object-store.contract.ts";

runObjectStoreContract("local directory", async (scratch) => ({
  store: new LocalObjectStore({ root: join(scratch, "root") }),
  close: async () => {},
}));

const s3 = engineUrl("s3");
if (s3) {
  runObjectStoreContract("S3 (S3Proxy)", async (scratch) => ({
    store: s3StoreFromUrl(s3, `contract-${crypto.randomUUID().slice(0, 8)}`, join(scratch, "cache")),
    close: async () => {},
  }));
}
