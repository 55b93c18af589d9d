/**
 * Categories of an article: keyword rules over title and text, plus the publisher's own
 * labels (Nasdaq "Earnings", SEC form types, GDELT themes) mapped to the same vocabulary.
 * Rules are regular expressions so phrases ("price target", "chapter 11") and
 * case-sensitive acronyms (SEC, IPO, Fed) are exact; an article may have several.
 */

export const CATEGORIES = [
  "earnings",
  "guidance",
  "mergers_acquisitions",
  "ipo",
  "dividends",
  "buybacks",
  "analyst_ratings",
  "management",
  "insider_trading",
  "regulatory",
  "legal",
  "bankruptcy",
  "labor",
  "products",
  "macro",
  "markets",
  "commodities",
  "crypto",
  "filings",
] as const;
export type Category = (typeof CATEGORIES)[number];

const RULES: Record<Category, RegExp[]> = {
  earnings: [
    /\b(earnings|quarterly results|(first|second|third|fourth)[- ]quarter (results|profit|loss|revenue)|q[1-4] (results|earnings|revenue|profit)|eps|earnings per share|net (income|profit|loss|sales)|operating (profit|income|loss)|ebitda?|revenues? (rose|fell|grew|increased|decreased|declined)|(beats?|beat|miss(es|ed)?|tops?|topped)\b[^.]{0,30}\b(estimates|expectations|forecasts|consensus)|quarterly (revenue|profit|earnings|results|sales)|profit warning|results for the (quarter|period|year))\b/i,
  ],
  guidance: [
    /\b(guidance|outlook|(raises|raised|lifts|lifted|cuts|cut|lowers|lowered|reaffirms|reaffirmed|maintains|withdraws|withdrew) (its |the )?((full[- ]year|annual|fy|quarterly) )?(forecast|outlook|guidance|target)|expects? (full[- ]year|annual|fiscal)|forecasts? (revenue|sales|profit|earnings))\b/i,
  ],
  mergers_acquisitions: [
    /\b(merger|mergers|acquisitions?|acquires?|acquired|acquiring|takeover|buyout|tender offer|to buy\b.{0,40}\b(for|in a) \$?[\d.]+ ?(million|billion|bn|mn|m)\b|agreed to buy|deal to buy|bid for|divest(s|ed|iture)?|spin[- ]?off|stake in)\b/i,
    /\bM&A\b/,
  ],
  ipo: [
    /\b(initial public offering|goes public|go public|public debut|trading debut|direct listing|SPAC)\b/i,
    /\bIPOs?\b/,
  ],
  dividends: [/\b(dividends?|payout ratio|special distribution)\b/i],
  buybacks: [/\b(buy-?backs?|share repurchases?|repurchase (program|plan|of shares)|repurchased? .{0,20}shares)\b/i],
  analyst_ratings: [
    /\b(upgrades?|upgraded|downgrades?|downgraded|price target|overweight|underweight|outperform|underperform|initiates? coverage|analyst (rating|says|note))\b/i,
  ],
  management: [
    /\b(chief executive|chief financial officer|steps? down|stepping down|resigns?|resigned|resignation|appoints?|appointed|names? .{0,30}as (ceo|cfo|chair)|board of directors|succession)\b/i,
    /\b(CEO|CFO|COO)\b/,
  ],
  insider_trading: [/\b(insider (buying|selling|trading|purchase|sale)|form 4)\b/i],
  regulatory: [
    /\b(regulators?|regulatory|regulation|antitrust|competition authority|fda approval|approved by the fda|fined|fine of|sanctions?|probe|investigation|watchdog|compliance|licen[cs]e (revoked|granted))\b/i,
    /\b(SEC|FTC|FDA|CFTC|FINRA|FCA|ESMA)\b/,
  ],
  legal: [
    /\b(lawsuits?|sued|sues|suing|class action|litigation|court|judge|verdict|settlement|settles?|settled|patent (infringement|dispute)|indicted|charged with)\b/i,
  ],
  bankruptcy: [
    /\b(bankruptcy|bankrupt|chapter 11|chapter 7|insolven(t|cy)|liquidation|receivership|default(s|ed)? on)\b/i,
  ],
  labor: [
    /\b(layoffs?|laid off|lay off|job cuts|cut \d[\d,]* jobs|workforce reduction|on strike|strike action|walkouts?|labou?r union|unioni[sz]e|hiring freeze)\b/i,
  ],
  products: [/\b(launch(es|ed)?|unveil(s|ed)?|new product|rolls? out|product recall|recalls?)\b/i],
  macro: [
    /\b(inflation|interest rates?|rate (hike|cut)s?|central bank|federal reserve|gdp|unemployment|jobless claims|payrolls|recession|consumer prices|treasury yields?|bond yields?|tariffs?|trade war|stimulus|economy|economic growth)\b/i,
    /\b(Fed|FOMC|ECB|BoE|BoJ|PBOC|CPI|PMI)\b/,
  ],
  markets: [
    /\b(stocks?|shares|stock market|wall street|s&p 500|dow jones|nasdaq|index|indexes|indices|futures|rally|sell-?off|bull market|bear market|equities|trading session|short squeeze|calls|puts)\b/i,
  ],
  commodities: [
    /\b(oil|crude|brent|wti|opec|natural gas|gold|silver|copper|wheat|corn|soybeans?|lumber|commodit(y|ies)|iron ore|lithium)\b/i,
  ],
  crypto: [/\b(bitcoin|ethereum|crypto|cryptocurrenc(y|ies)|blockchain|stablecoins?|nfts?|dogecoin|solana)\b/i],
  filings: [],
};

/** Publisher labels (lower case) to categories. */
const LABELS: Record<string, Category[]> = {
  earnings: ["earnings"],
  markets: ["markets"],
  stocks: ["markets"],
  economy: ["macro"],
  economics: ["macro"],
  ipos: ["ipo"],
  ipo: ["ipo"],
  commodities: ["commodities"],
  cryptocurrency: ["crypto"],
  cryptocurrencies: ["crypto"],
  "mergers and acquisitions": ["mergers_acquisitions"],
  dividends: ["dividends"],
};

/** SEC EDGAR form types (Atom category terms) to categories; every form is also "filings". */
const SEC_FORMS: Record<string, Category[]> = {
  "3": ["insider_trading"],
  "4": ["insider_trading"],
  "5": ["insider_trading"],
  "10-K": ["earnings"],
  "10-Q": ["earnings"],
  "20-F": ["earnings"],
  "40-F": ["earnings"],
  "S-1": ["ipo"],
  "F-1": ["ipo"],
  "424B4": ["ipo"],
  "SC 13D": ["mergers_acquisitions"],
  "SC TO-T": ["mergers_acquisitions"],
  DEFM14A: ["mergers_acquisitions"],
  "425": ["mergers_acquisitions"],
  "15-12G": ["regulatory"],
};
const SEC_FORM_RE = /^(\d{1,3}|\d{1,2}-[A-Z]{1,2}(\/A)?|[A-Z]{1,6}[- ]?\d{0,3}[A-Z]?(\/A)?|SC [\dA-Z-]+(\/A)?)$/;

/** GDELT GKG themes (prefix match) to categories. */
const GKG_THEMES: [prefix: string, category: Category][] = [
  ["ECON_STOCKMARKET", "markets"],
  ["ECON_BANKRUPTCY", "bankruptcy"],
  ["ECON_INFLATION", "macro"],
  ["ECON_INTEREST_RATE", "macro"],
  ["ECON_CENTRALBANK", "macro"],
  ["ECON_TAXATION", "macro"],
  ["ECON_TRADE", "macro"],
  ["ECON_OILPRICE", "commodities"],
  ["ECON_BITCOIN", "crypto"],
  ["ECON_CRYPTOCURRENCY", "crypto"],
  ["ECON_MERGERS", "mergers_acquisitions"],
  ["ECON_IPO", "ipo"],
  ["UNEMPLOYMENT", "macro"],
  ["WB_1104_MACROECONOMIC", "macro"],
];

export function categorize(title: string, body: string, labels: readonly string[] = [], secFiling = false): Category[] {
  const found = new Set<Category>();
  const text = `${title}\n${body}`;
  for (const cat of CATEGORIES) if (RULES[cat].some((re) => re.test(text))) found.add(cat);
  for (const raw of labels) {
    const label = raw.trim();
    for (const c of LABELS[label.toLowerCase()] ?? []) found.add(c);
    if (secFiling && SEC_FORM_RE.test(label)) {
      found.add("filings");
      for (const c of SEC_FORMS[label.replace(/\/A$/, "")] ?? []) found.add(c);
    }
    for (const [prefix, c] of GKG_THEMES) if (label.startsWith(prefix)) found.add(c);
  }
  return CATEGORIES.filter((c) => found.has(c));
}
