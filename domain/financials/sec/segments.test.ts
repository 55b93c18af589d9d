import { describe, expect, test } from "bun:test";
import { breakdownOf, memberLabel, parseFlatFacts, parseInstance } from "./segments.ts";

const instance = `<?xml version="1.0" encoding="utf-8"?>
<xbrl xmlns="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024">
  <context id="c-1"><entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier></entity>
    <period><startDate>2024-01-01</startDate><endDate>2024-03-31</endDate></period></context>
  <context id="c-2"><entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier>
    <segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">x:CloudSegmentMember</xbrldi:explicitMember></segment></entity>
    <period><startDate>2024-01-01</startDate><endDate>2024-03-31</endDate></period></context>
  <context id="c-3"><entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier>
    <segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">x:DevicesSegmentMember</xbrldi:explicitMember>
    <xbrldi:explicitMember dimension="srt:ConsolidationItemsAxis">us-gaap:OperatingSegmentsMember</xbrldi:explicitMember></segment></entity>
    <period><startDate>2024-01-01</startDate><endDate>2024-03-31</endDate></period></context>
  <context id="c-4"><entity><identifier scheme="http://www.sec.gov/CIK">0000000042</identifier>
    <segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">x:DevicesSegmentMember</xbrldi:explicitMember></segment></entity>
    <period><startDate>2023-10-01</startDate><endDate>2024-03-31</endDate></period></context>
  <unit id="usd"><measure>iso4217:USD</measure></unit>
  <dei:EntityCentralIndexKey contextRef="c-1">0000000042</dei:EntityCentralIndexKey>
  <dei:DocumentType contextRef="c-1">10-Q</dei:DocumentType>
  <dei:DocumentPeriodEndDate contextRef="c-1">2024-03-31</dei:DocumentPeriodEndDate>
  <dei:CurrentFiscalYearEndDate contextRef="c-1">--09-30</dei:CurrentFiscalYearEndDate>
  <us-gaap:Revenues contextRef="c-1" unitRef="usd" decimals="-6">1000</us-gaap:Revenues>
  <us-gaap:Revenues contextRef="c-2" unitRef="usd" decimals="-6">600</us-gaap:Revenues>
  <us-gaap:Revenues contextRef="c-3" unitRef="usd" decimals="-6">400</us-gaap:Revenues>
  <us-gaap:Revenues contextRef="c-4" unitRef="usd" decimals="-6">790</us-gaap:Revenues>
  <us-gaap:CostOfRevenue contextRef="c-2" unitRef="usd" decimals="-6">300</us-gaap:CostOfRevenue>
</xbrl>`;

describe("revenue segments", () => {
  test("instance: single-axis revenue facts (operating-segment qualifier allowed), quarters and years only", () => {
    const { meta, facts } = parseInstance(instance);
    expect(meta).toMatchObject({
      cik: "0000000042",
      documentType: "10-Q",
      periodEnd: "2024-03-31",
      fiscalYearEnd: "--09-30",
    });
    expect(facts.map((f) => [f.member, f.value, f.unit]).sort()).toEqual([
      ["x:CloudSegmentMember", 600, "USD"],
      ["x:DevicesSegmentMember", 400, "USD"],
    ]);
  });

  test("flattened fact table with a dimensions column", () => {
    const csv = [
      "namespace,fact,value,units,start_date,end_date,dimensions,period",
      "dei,EntityCentralIndexKey,0000320187,,2022-06-01,2023-02-28,,x",
      `us-gaap,RevenueFromContractWithCustomerExcludingAssessedTax,8510000000,USD,2022-12-01,2023-02-28,{'srt:ProductOrServiceAxis': 'nke:FootwearMember'},x`,
      `us-gaap,RevenueFromContractWithCustomerExcludingAssessedTax,3322000000,USD,2022-12-01,2023-02-28,"{'srt:ProductOrServiceAxis': 'nke:FootwearMember', 'us-gaap:SubsegmentsAxis': 'nke:NorthAmericaSegmentMember'}",x`,
    ].join("\n");
    const { meta, facts } = parseFlatFacts(csv);
    expect(meta.cik).toBe("0000320187");
    expect(facts).toEqual([
      {
        concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
        axis: "srt:ProductOrServiceAxis",
        member: "nke:FootwearMember",
        start: "2022-12-01",
        end: "2023-02-28",
        value: 8510000000,
        unit: "USD",
      },
    ]);
  });

  test("breakdown axes only; readable labels from member names", () => {
    expect(breakdownOf([["us-gaap:LongtermDebtTypeAxis", "us-gaap:SeniorNotesMember"]])).toBeNull();
    expect(breakdownOf([["srt:StatementGeographicalAxis", "country:US"]])).toEqual({
      axis: "srt:StatementGeographicalAxis",
      member: "country:US",
    });
    expect(memberLabel("amzn:NorthAmericaSegmentMember")).toBe("North America Segment");
    expect(memberLabel("nke:NIKEBrandMember")).toBe("NIKE Brand");
    expect(memberLabel("aapl:IPhoneMember")).toBe("IPhone");
  });
});
