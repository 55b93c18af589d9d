/**
 * ObjectStore on a local directory (the embedded profile). put() moves the staged file
 * into place with rename(2), atomic on one filesystem; the file and the directory are
 * fsynced first so a published object survives a power cut. A file from another
 * filesystem is copied beside the target first, then renamed.
 */
import { copyFile, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { checkObjectKey, type ObjectStore } from "../../domain/object-store.ts";

export class LocalObjectStore implements ObjectStore {
  readonly root: string;
  readonly location: string;

  constructor(opts: { root: string }) {
    this.root = resolve(opts.root);
    this.location = pathToFileURL(this.root).href;
  }

  async put(key: string, file: string): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    await fsync(file);
    try {
      await rename(file, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
      const partial = `${target}.${crypto.randomUUID()}.partial`;
      await copyFile(file, partial);
      await fsync(partial);
      await rename(partial, target);
      await rm(file, { force: true });
    }
    await fsync(dirname(target));
    return { bytes: (await stat(target)).size };
  }

  async stat(key: string): Promise<{ bytes: number } | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { bytes: s.size } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async localPath(key: string): Promise<string> {
    return this.pathOf(key);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const dir = prefix === "" ? this.root : this.pathOf(prefix.replace(/\/$/, ""));
    let entries: string[];
    try {
      entries = (await readdir(dir, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && !e.name.endsWith(".partial"))
        .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join("/"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return entries.sort();
  }

  private pathOf(key: string): string {
    return join(this.root, checkObjectKey(key));
  }
}

async function fsync(path: string): Promise<void> {
  const fh = await open(path, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
