import { describe, expect, test } from "bun:test";
import { fixtureFacts } from "../../../test/sec-fixture.ts";
import type { StoredFact } from "../fields.ts";
import { buildCompanyModel } from "./company.ts";
import type { Statement } from "./statements.ts";

const byKey = (sts: Statement[]) => new Map(sts.map((s) => [s.period.key, s]));

function fact(p: Partial<StoredFact> & Pick<StoredFact, "concept" | "end" | "val" | "accn" | "filed">): StoredFact {
  return { taxonomy: "us-gaap", unit: "USD", start: null, fy: null, fp: null, form: "10-K", frame: null, ...p };
}

describe("standardised income statements", () => {
  const sts = byKey(buildCompanyModel(fixtureFacts()).statements);

  test("quarters and fiscal years by duration; 6- and 9-month year-to-date columns are not quarters", () => {
    expect([...sts.keys()].sort()).toEqual(["2022-FY", "2022-Q1", "2022-Q2", "2022-Q3", "2022-Q4"]);
    expect(sts.get("2022-Q2")?.period).toMatchObject({ start: "2022-04-01", end: "2022-06-30", kind: "quarter" });
    expect(sts.get("2022-Q2")?.values.revenue).toBe(110);
  });

  test("Q4 = FY - (Q1+Q2+Q3) for monetary lines only; negative quarters are kept", () => {
    const q4 = sts.get("2022-Q4") as Statement;
    expect(q4.period).toMatchObject({ start: "2022-10-01", end: "2022-12-31", code: "Q4" });
    expect(q4.values.revenue).toBe(460 - 330);
    expect(q4.values.cost_of_revenue).toBe(270 - 194);
    expect(q4.values.operating_income).toBe(60 - 67);
    expect(q4.values.net_income).toBe(30 - 36);
    expect(q4.values.earnings_per_share).toBeNull();
    expect(q4.values.weighted_average_shares).toBeNull();
    expect(q4.provenance.revenue).toEqual({
      method: "derived",
      formula: "FY - (Q1 + Q2 + Q3)",
      accession_numbers: [
        "0000999999-23-000001",
        "0000999999-22-000001",
        "0000999999-22-000002",
        "0000999999-22-000003",
      ],
    });
    expect(q4.accession_number).toBe("0000999999-23-000001");
  });

  test("a proxy statement filed later never becomes the reference filing", () => {
    const fy = sts.get("2022-FY") as Statement;
    expect(fy.accession_number).toBe("0000999999-23-000001");
    expect(fy.provenance.net_income).toMatchObject({ method: "reported", accession_number: "0000999999-23-000001" });
  });

  test("derived lines say how they were derived", () => {
    const q1 = sts.get("2022-Q1") as Statement;
    expect(q1.values.gross_profit).toBe(40);
    expect(q1.provenance.gross_profit).toMatchObject({ method: "derived", formula: "revenue - cost_of_revenue" });
    expect(q1.values.operating_expense).toBe(20);
    expect(q1.values.ebit).toBe(20);
    expect(q1.provenance.ebit).toMatchObject({ formula: "operating_income (no interest expense reported)" });
  });

  test("a restatement in a later filing replaces the original value", () => {
    const restated = byKey(buildCompanyModel(fixtureFacts(true)).statements);
    const fy = restated.get("2022-FY") as Statement;
    expect(fy.values.revenue).toBe(470);
    expect(fy.accession_number).toBe("0000999999-24-000001");
    expect(restated.get("2022-Q4")?.values.revenue).toBe(470 - 330);
    expect(restated.get("2023-FY")?.values.revenue).toBe(520);
  });

  test("chain order first, then the latest filing of that concept (restatement wins)", () => {
    const base = { start: "2021-01-01", end: "2021-12-31", fy: 2021, fp: "FY" };
    const facts = [
      fact({ ...base, concept: "Revenues", val: 900, accn: "A-1", filed: "2022-02-01" }),
      fact({
        ...base,
        concept: "RevenueFromContractWithCustomerExcludingAssessedTax",
        val: 880,
        accn: "A-1",
        filed: "2022-02-01",
      }),
      fact({ ...base, concept: "NetIncomeLoss", val: 50, accn: "A-1", filed: "2022-02-01" }),
    ];
    expect(buildCompanyModel(facts).statements[0]?.values.revenue).toBe(880);
    // A later filing tagging only a lower-ranked concept does not switch the definition...
    const other = [...facts, fact({ ...base, concept: "Revenues", val: 905, accn: "A-2", filed: "2023-02-01" })];
    expect(buildCompanyModel(other).statements[0]?.values.revenue).toBe(880);
    // ...but a later filing restating the same concept replaces the original.
    const restated = [
      ...facts,
      fact({
        ...base,
        concept: "RevenueFromContractWithCustomerExcludingAssessedTax",
        val: 885,
        accn: "A-3",
        filed: "2023-02-01",
      }),
    ];
    const st = buildCompanyModel(restated).statements[0];
    expect(st?.values.revenue).toBe(885);
    expect(st?.provenance.revenue).toMatchObject({
      concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
      accession_number: "A-3",
    });
    expect(st?.accession_number).toBe("A-3");
  });

  test("a later figure that only repeats an earlier one rounded to millions is not a restatement", () => {
    const base = { concept: "Revenues", start: "2018-04-01", end: "2018-06-30" };
    const facts = [
      fact({ ...base, val: 4_002_231_000, accn: "Q-1", filed: "2018-08-06", form: "10-Q" }),
      fact({ ...base, val: 4_002_000_000, accn: "K-1", filed: "2020-02-13" }),
      fact({
        concept: "Revenues",
        start: "2018-01-01",
        end: "2018-12-31",
        val: 21_461_000_000,
        accn: "K-1",
        filed: "2020-02-13",
      }),
    ];
    expect(buildCompanyModel(facts).statements[0]?.values.revenue).toBe(4_002_231_000);
    const revised = [...facts, fact({ ...base, val: 4_010_000_000, accn: "K-2", filed: "2021-02-13" })];
    expect(buildCompanyModel(revised).statements[0]?.values.revenue).toBe(4_010_000_000);
  });

  test("the fiscal year comes from the period end, not from the filing's fy", () => {
    // The 10-K for the year ended January 2024 also reports the prior year as a comparative;
    // both columns carry the filing's fy (2024).
    const mk = (start: string, end: string, val: number) =>
      fact({ concept: "Revenues", start, end, val, accn: "B-1", filed: "2024-03-01", fy: 2024, fp: "FY" });
    const sts2 = buildCompanyModel([mk("2022-01-30", "2023-01-29", 10), mk("2023-01-30", "2024-01-28", 20)]).statements;
    expect(sts2.map((s) => [s.period.fiscal_year, s.values.revenue])).toEqual([
      [2023, 10],
      [2024, 20],
    ]);
  });

  test("per-share amounts and share counts are restated to the latest split basis", () => {
    const eps = (start: string, end: string, val: number, accn: string, filed: string) =>
      fact({ concept: "EarningsPerShareBasic", unit: "USD/shares", start, end, val, accn, filed });
    const sh = (start: string, end: string, val: number, accn: string, filed: string) =>
      fact({ concept: "WeightedAverageNumberOfSharesOutstandingBasic", unit: "shares", start, end, val, accn, filed });
    const facts = [
      eps("2020-01-01", "2020-12-31", 4.0, "C-1", "2021-02-01"),
      sh("2020-01-01", "2020-12-31", 100, "C-1", "2021-02-01"),
      eps("2019-01-01", "2019-12-31", 3.2, "C-1", "2021-02-01"),
      sh("2019-01-01", "2019-12-31", 100, "C-1", "2021-02-01"),
      // After a 4-for-1 split the next 10-K restates both comparatives.
      eps("2020-01-01", "2020-12-31", 1.0, "C-2", "2022-02-01"),
      sh("2020-01-01", "2020-12-31", 400, "C-2", "2022-02-01"),
      eps("2021-01-01", "2021-12-31", 1.1, "C-2", "2022-02-01"),
      sh("2021-01-01", "2021-12-31", 401, "C-2", "2022-02-01"),
    ];
    const model = buildCompanyModel(facts);
    expect(model.splits).toHaveLength(1);
    expect(model.splits[0]).toMatchObject({ ratio: 4, oldBasisUntil: "2021-02-01", newBasisFrom: "2022-02-01" });
    const m = byKey(model.statements);
    // FY2019 appears only in the pre-split filing: restated here.
    expect(m.get("2019-FY")?.values.earnings_per_share).toBe(0.8);
    expect(m.get("2019-FY")?.values.weighted_average_shares).toBe(400);
    expect(m.get("2019-FY")?.provenance.earnings_per_share).toMatchObject({ split_factor: 4 });
    expect(m.get("2020-FY")?.values.earnings_per_share).toBe(1.0);
    expect(m.get("2021-FY")?.values.weighted_average_shares).toBe(401);
  });

  test("a share count tagged in thousands is scaled when EPS x shares must equal net income", () => {
    const base = { start: "2010-05-03", end: "2010-08-01", accn: "N-1", filed: "2010-08-30", form: "10-Q" };
    const facts = [
      fact({ ...base, concept: "NetIncomeLoss", val: -140_961_000 }),
      fact({ ...base, concept: "EarningsPerShareBasic", unit: "USD/shares", val: -0.25 }),
      fact({ ...base, concept: "WeightedAverageNumberOfSharesOutstandingBasic", unit: "shares", val: 572_764 }),
      fact({ ...base, start: "2010-02-01", end: "2011-01-30", concept: "NetIncomeLoss", val: 253_146_000 }),
    ];
    const q = byKey(buildCompanyModel(facts).statements).get("2011-Q2");
    expect(q?.values.weighted_average_shares).toBe(572_764_000);
    expect(q?.provenance.weighted_average_shares).toMatchObject({ method: "reported", scale_factor: 1000 });
  });
});
