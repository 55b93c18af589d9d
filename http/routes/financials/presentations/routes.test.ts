import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestFilingsDirectory } from "../../../../pipelines/financials/filings/index.ts";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { sharedData } from "../../../../test/shared-data.ts";

const KEYS = [
  "accession_number",
  "cik",
  "company_name",
  "doc_type_label",
  "exhibit_type",
  "form_type",
  "markdown",
  "published_at",
  "s3_url",
  "sec_url",
  "ticker",
];

// The Buckle files state no accession number; the test gives them one (not the real one)
// through the file-name convention "<accession>_<TYPE>_<name>", as an operator would.
const BUCKLE_TEST_ACCESSION = "0000885245-24-900001";

const dir = sharedData("sec/8k", "presentation routes");
describe.skipIf(!dir)("GET /v1/presentations/{accession_number}", () => {
  let svc: TestService;
  let key: string;
  let named: string;
  const get = (accession: string) => svc.request(`/v1/presentations/${accession}`, { headers: { "x-api-key": key } });

  beforeAll(async () => {
    svc = await startTestService();
    key = await svc.apiKey("decks@example.com", "pro");
    await ingestFilingsDirectory(svc.service.research, dir ?? "");
    named = mkdtempSync(join(tmpdir(), "cairn-8k-"));
    copyFileSync(
      join(dir ?? "", "Buckle_8-K_2024-11-22.html"),
      join(named, `${BUCKLE_TEST_ACCESSION}_8-K_bke-20241122.htm`),
    );
    copyFileSync(
      join(dir ?? "", "Buckle_8-K_2024-11-22_EX-99.1.html"),
      join(named, `${BUCKLE_TEST_ACCESSION}_EX-99.1_bke20241122-8kexhibit.htm`),
    );
    await ingestFilingsDirectory(svc.service.research, named, {
      companyTickersPath: join(dir ?? "", "..", "company_tickers.json"),
    });
  });
  afterAll(async () => {
    await svc.close();
    rmSync(named, { recursive: true, force: true });
  });

  test("needs an API key", async () => {
    expect((await svc.request("/v1/presentations/0001213900-25-032135")).status).toBe(401);
  });

  test("ABVC's 8-K: the EX-99.1 press release from the full submission, as Markdown", async () => {
    const res = await get("0001213900-25-032135");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string | null>;
    expect(Object.keys(body).sort()).toEqual(KEYS);
    expect(body).toMatchObject({
      accession_number: "0001213900-25-032135",
      cik: "0001173313",
      ticker: "ABVC",
      company_name: "ABVC BIOPHARMA, INC.",
      form_type: "8-K",
      exhibit_type: "EX-99.1",
      doc_type_label: "Press release",
      published_at: "2025-04-15",
      sec_url: "https://www.sec.gov/Archives/edgar/data/1173313/000121390025032135/ea023837201ex99-1_abvcbio.htm",
      s3_url: null,
    });
    expect(body.markdown).toContain("ABVC BioPharma Announces 2024 Financial Results");
    expect(body.markdown).toMatch(/\| OncoX BioPharma Inc\.\s+\| Oncology\s+\| \$200,000\s+\| \$4,800,000\s+\|/);
  });

  test("Buckle's EX-99.1: the net income table comes through as Markdown", async () => {
    const body = (await (await get(BUCKLE_TEST_ACCESSION)).json()) as Record<string, string | null>;
    expect(body).toMatchObject({
      cik: "0000885245",
      ticker: "BKE",
      company_name: "BUCKLE INC",
      exhibit_type: "EX-99.1",
      doc_type_label: "Press release",
      published_at: "2024-11-22",
      sec_url: `https://www.sec.gov/Archives/edgar/data/885245/${BUCKLE_TEST_ACCESSION.replaceAll("-", "")}/bke20241122-8kexhibit.htm`,
    });
    expect(body.markdown).toContain("THE BUCKLE, INC. REPORTS THIRD QUARTER NET INCOME");
    expect(body.markdown).toMatch(/\| NET INCOME\s+\| \$44,172\s+\| \$51,762\s+\|/);
  });

  test("a filing without an EX-99 exhibit serves its 8-K body", async () => {
    const body = (await (await get("0001493152-25-001317")).json()) as Record<string, string | null>;
    expect(body).toMatchObject({ ticker: "ACFN", exhibit_type: "8-K", doc_type_label: "Current report" });
    expect(body.markdown).toContain("ACORN");
  });

  test("malformed accession numbers are 422, unknown ones 404", async () => {
    for (const bad of ["123", "0001213900-25-03213", "0001213900_25_032135", "abcdefghij-25-032135"]) {
      const res = await get(bad);
      expect(res.status).toBe(422);
      const detail = ((await res.json()) as { detail: { loc: string[]; type: string }[] }).detail;
      expect(detail[0]).toMatchObject({ loc: ["path", "accession_number"], type: "string_pattern_mismatch" });
    }
    const missing = await get("0000000000-00-000000");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "No filing with accession number 0000000000-00-000000" });
  });
});
