/**
 * Reads a directory of saved feed bodies (the shared samples, an operator's exports) into
 * RawNewsItems, telling each file's source type from its content. Files no parser
 * recognises (schemas, word lists, labelled sentiment sets) are reported and skipped.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { RawNewsItem } from "../../domain/news/ports.ts";
import type { SourceType } from "../../domain/news/types.ts";
import { parseSource, sniffSource } from "./parse.ts";

export interface LocalFeedFile {
  file: string;
  type: SourceType | null;
  items: RawNewsItem[];
  error?: string;
}

const EXTENSIONS = /\.(json|xml|rss|atom|csv|tsv|txt)$/i;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (EXTENSIONS.test(name)) out.push(full);
  }
  return out;
}

/** SEC EDGAR and several publishers declare latin-1; everything else is read as UTF-8. */
function readText(path: string): string {
  const bytes = readFileSync(path);
  const prolog = bytes.subarray(0, 200).toString("latin1");
  const enc = /encoding=["'](iso-8859-1|latin-?1|windows-1252)["']/i.test(prolog) ? "latin1" : "utf-8";
  return new TextDecoder(enc).decode(bytes);
}

export function readLocalFeeds(dir: string): LocalFeedFile[] {
  return walk(dir).map((path) => {
    const file = relative(dir, path);
    const body = readText(path);
    const type = sniffSource(body);
    if (!type) return { file, type: null, items: [] };
    const subreddit = /reddit_(\w+?)_posts/i.exec(file)?.[1];
    try {
      return { file, type, items: parseSource(type, body, { url: pathToFileURL(path).toString(), subreddit }) };
    } catch (err) {
      return { file, type, items: [], error: err instanceof Error ? err.message : String(err) };
    }
  });
}
