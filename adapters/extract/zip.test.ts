import { describe, expect, test } from "bun:test";
import { deflateRawSync } from "node:zlib";
import { docxBomb, manyEntries, smallDocx, zipOf } from "../../test/hostile/zip-bombs.ts";
import { openPackage, PackageTooLarge, ZIP_BUDGET } from "./zip.ts";

const MB = 1024 * 1024;

describe("openPackage budgets", () => {
  test("a honest bomb (200 MB declared from ~200 KB) is refused from the central directory, before inflating", async () => {
    const bomb = await docxBomb(200 * MB, true);
    expect(bomb.length).toBeLessThan(1 * MB);
    expect(() => openPackage(bomb)).toThrow(PackageTooLarge);
    expect(() => openPackage(bomb)).toThrow(/declares more than 100 MiB/);
  });

  test("a per-entry ratio past 100:1 is refused even under the total budget", () => {
    const data = deflateRawSync(Buffer.alloc(8 * MB, 0x61));
    const zip = zipOf([{ name: "word/document.xml", data, method: 8, declared: 8 * MB }]);
    expect(() => openPackage(zip)).toThrow(/compressed more than 100:1/);
  });

  test("a bomb that lies about its size stops inflating at the part budget", async () => {
    const bomb = await docxBomb(200 * MB, false);
    const pkg = openPackage(bomb);
    expect(() => pkg.text("word/document.xml")).toThrow(PackageTooLarge);
    expect(() => pkg.text("word/document.xml")).toThrow(/inflates to more than 32 MiB/);
    expect(pkg.inflated).toBe(0);
  });

  test("the total budget counts real inflated bytes across parts", () => {
    // Incompressible parts under a small budget: no ratio rule applies, only the total.
    const part = deflateRawSync(crypto.getRandomValues(new Uint8Array(MB)));
    const zip = zipOf(
      ["a", "b", "c", "d", "e", "f"].map((n) => ({ name: `${n}.xml`, data: part, method: 8 as const, declared: 10 })),
    );
    const pkg = openPackage(zip, { ...ZIP_BUDGET, maxTotalBytes: 5 * MB });
    for (const n of ["a", "b", "c", "d", "e"]) expect(pkg.text(`${n}.xml`)?.length).toBeGreaterThan(0);
    expect(pkg.inflated).toBe(5 * MB);
    expect(() => pkg.text("f.xml")).toThrow(/inflates to more than 5 MiB/);
  });

  test("a part that inflates past 100:1 of its compressed size is refused, whatever it declared", () => {
    const data = deflateRawSync(Buffer.alloc(4 * MB, 0x61));
    const zip = zipOf([{ name: "word/document.xml", data, method: 8, declared: 100 }]);
    expect(() => openPackage(zip).text("word/document.xml")).toThrow(/inflates more than 100:1 \(over 1 MiB/);
  });

  test("100 000 entries are refused by count", () => {
    expect(() => openPackage(manyEntries(100_000))).toThrow(
      new RegExp(`at most ${ZIP_BUDGET.maxEntries}|more than ${ZIP_BUDGET.maxEntries}`),
    );
  });

  test("a normal package reads; a missing part is undefined; garbage is a plain error", () => {
    const pkg = openPackage(smallDocx("hello world"));
    expect(pkg.text("word/document.xml")).toContain("hello world");
    expect(pkg.text("word/missing.xml")).toBeUndefined();
    expect(() => openPackage(new Uint8Array(100))).toThrow(/not a ZIP package/);
  });
});
