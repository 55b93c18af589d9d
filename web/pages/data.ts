/** Data: one company by CIK: profile, income statements, a ratios chart, the workbook export. */
import { call, showErrors, url } from "../lib/api.ts";
import { lineChart } from "../lib/chart.ts";
import { field, h, set, status, table } from "../lib/dom.ts";
import { session } from "../lib/session.ts";

interface Company {
  cik: string;
  name: string | null;
  ticker: string | null;
  sic_description: string | null;
  fiscal_year_end: string | null;
}
type Row = Record<string, number | string | null>;

const money = (v: unknown) => (typeof v === "number" ? v.toLocaleString() : "—");

export function render(main: HTMLElement): void {
  const cik = field(
    "CIK",
    h("input", { name: "cik", required: true, inputmode: "numeric", value: location.hash.split("/")[2] ?? "" }),
  );
  const out = status();
  const body = h("div", {});
  const form = h("form", { class: "inline" }, cik.wrap, h("button", { type: "submit" }, "Show"), out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const id = (cik.input as HTMLInputElement).value.trim();
    out.textContent = "Loading…";
    try {
      const [co, income, ratios] = await Promise.all([
        call<Company>(`/v1/companies/${id}`, { auth: "key" }),
        call<Row[]>(`/v1/financials/${id}/income`, { auth: "key", query: { period: "FY", limit: 10 } }),
        call<Row[]>(`/v1/financials/${id}/ratios`, { auth: "key", query: { period: "FY", limit: 10 } }),
      ]);
      out.textContent = "";
      const chart = h("div", { class: "chart", role: "img", "aria-label": "Margins by fiscal year" });
      const dl = h("button", { type: "button" }, "Download workbook (.xlsx)");
      dl.addEventListener("click", () => void download(id, out));
      set(
        body,
        h("h2", {}, `${co.name ?? co.cik} ${co.ticker ? `(${co.ticker})` : ""}`),
        h("p", {}, co.sic_description ?? "", co.fiscal_year_end ? ` · fiscal year ends ${co.fiscal_year_end}` : ""),
        dl,
        h("h3", {}, "Income statements"),
        table(
          ["Fiscal year", "Revenue", "Gross profit", "Operating income", "Net income"],
          income.map((r) => [
            String(r.fiscal_year ?? ""),
            money(r.revenue),
            money(r.gross_profit),
            money(r.operating_income),
            money(r.net_income),
          ]),
        ),
        h("h3", {}, "Ratios"),
        chart,
      );
      const rs = [...ratios].sort((a, b) => Number(a.fiscal_year) - Number(b.fiscal_year));
      await lineChart(
        chart,
        "Margins",
        rs.map((r) => Number(r.fiscal_year)),
        {
          gross: rs.map((r) => r.gross_margin as number | null),
          operating: rs.map((r) => r.operating_margin as number | null),
          net: rs.map((r) => r.net_margin as number | null),
        },
      );
    } catch (err) {
      showErrors(err, form, out);
    }
  });
  set(main, h("h1", {}, "Company data"), form, body);
}

/** The export needs the API key header, so it is fetched and handed over as a blob. */
async function download(cik: string, out: HTMLElement): Promise<void> {
  const res = await fetch(url(`/v1/export/financials/${cik}`), { headers: { "X-API-Key": session().apiKey ?? "" } });
  if (!res.ok) {
    out.textContent = `Export failed: ${res.status}`;
    return;
  }
  const a = h("a", { href: URL.createObjectURL(await res.blob()), download: `financials-${cik}.xlsx` });
  a.click();
  out.textContent = "Workbook downloaded";
}
