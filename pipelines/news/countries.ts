/**
 * Countries an article references, as ISO 3166-1 alpha-2 codes: country names, demonyms,
 * capitals and financial centres, and national institutions (Fed, BoJ). Matching is
 * case-sensitive on purpose ("US" the country, "us" the pronoun; "Polish" not "polish"),
 * and names that are mostly something else in English news (Georgia, Jordan, Chad) are
 * left out. GDELT's own location codes are merged in by the caller.
 */

/** ISO-2 code, then the literal phrases that reference the country, separated by "|". */
const TABLE: [iso: string, phrases: string][] = [
  [
    "US",
    "United States|U.S.|U.S.A.|USA|US|American|Americans|Wall Street|Federal Reserve|Fed|FOMC|New York|Washington, D.C.",
  ],
  ["GB", "United Kingdom|U.K.|UK|Britain|British|England|London|Bank of England|BoE|Scotland|Scottish|Wales|FTSE"],
  ["CN", "China|Chinese|Beijing|Shanghai|Shenzhen|PBOC|People's Bank of China"],
  ["JP", "Japan|Japanese|Tokyo|Osaka|Bank of Japan|BoJ|Nikkei"],
  ["DE", "Germany|German|Germans|Berlin|Frankfurt|Munich|Bundesbank|DAX"],
  ["FR", "France|French|Paris|CAC 40"],
  ["IT", "Italy|Italian|Rome|Milan"],
  ["ES", "Spain|Spanish|Madrid|Barcelona"],
  ["CA", "Canada|Canadian|Canadians|Toronto|Ottawa|Bank of Canada"],
  ["MX", "Mexico|Mexican|Mexicans"],
  ["BR", "Brazil|Brazilian|Brasilia|São Paulo|Sao Paulo"],
  ["AR", "Argentina|Argentine|Argentinian|Buenos Aires"],
  ["CL", "Chile|Chilean|Santiago"],
  ["PE", "Peru|Peruvian|Lima"],
  ["CO", "Colombia|Colombian|Bogota|Bogotá"],
  ["VE", "Venezuela|Venezuelan"],
  ["EC", "Ecuador|Ecuadorian|Quito"],
  ["PA", "Panama|Panamanian"],
  ["IN", "India|Indian|Mumbai|New Delhi|Delhi|Reserve Bank of India|RBI|Sensex"],
  ["RU", "Russia|Russian|Russians|Moscow|Kremlin"],
  ["UA", "Ukraine|Ukrainian|Kyiv|Kiev"],
  ["KR", "South Korea|South Korean|Seoul|KOSPI"],
  ["KP", "North Korea|North Korean|Pyongyang"],
  ["TW", "Taiwan|Taiwanese|Taipei"],
  ["HK", "Hong Kong"],
  ["SG", "Singapore|Singaporean"],
  ["AU", "Australia|Australian|Sydney|Melbourne|Reserve Bank of Australia"],
  ["NZ", "New Zealand"],
  ["CH", "Switzerland|Swiss|Zurich|Geneva"],
  ["NL", "Netherlands|Dutch|Amsterdam"],
  ["BE", "Belgium|Belgian"],
  ["LU", "Luxembourg"],
  ["SE", "Sweden|Swedish|Stockholm"],
  ["NO", "Norway|Norwegian|Oslo"],
  ["DK", "Denmark|Danish|Copenhagen"],
  ["FI", "Finland|Finnish|Helsinki"],
  ["IE", "Ireland|Irish|Dublin"],
  ["PT", "Portugal|Portuguese|Lisbon"],
  ["GR", "Greece|Greek|Athens"],
  ["TR", "Turkey|Turkish|Istanbul|Ankara"],
  ["PL", "Poland|Polish|Warsaw"],
  ["AT", "Austria|Austrian|Vienna"],
  ["CZ", "Czech Republic|Czechia|Czech|Prague"],
  ["HU", "Hungary|Hungarian|Budapest"],
  ["RO", "Romania|Romanian|Bucharest"],
  ["EE", "Estonia|Estonian|Tallinn"],
  ["LV", "Latvia|Latvian|Riga"],
  ["LT", "Lithuania|Lithuanian|Vilnius"],
  ["RS", "Serbia|Serbian|Belgrade"],
  ["IL", "Israel|Israeli|Tel Aviv"],
  ["SA", "Saudi Arabia|Saudi|Riyadh"],
  ["AE", "United Arab Emirates|UAE|Emirati|Dubai|Abu Dhabi"],
  ["QA", "Qatar|Qatari|Doha"],
  ["KW", "Kuwait|Kuwaiti"],
  ["IR", "Iran|Iranian|Tehran"],
  ["IQ", "Iraq|Iraqi|Baghdad"],
  ["EG", "Egypt|Egyptian|Cairo"],
  ["MA", "Morocco|Moroccan"],
  ["ZA", "South Africa|South African|Johannesburg"],
  ["NG", "Nigeria|Nigerian|Lagos"],
  ["KE", "Kenya|Kenyan|Nairobi"],
  ["ID", "Indonesia|Indonesian|Jakarta"],
  ["MY", "Malaysia|Malaysian|Kuala Lumpur"],
  ["TH", "Thailand|Thai|Bangkok"],
  ["VN", "Vietnam|Vietnamese|Hanoi"],
  ["PH", "Philippines|Philippine|Filipino|Manila"],
  ["PK", "Pakistan|Pakistani|Karachi"],
  ["BD", "Bangladesh|Bangladeshi|Dhaka"],
  ["KZ", "Kazakhstan"],
];

/** Phrases that contain a country word but reference something else. */
const MASKS =
  /\b(New Mexico|Bank of America|Latin America|South America|North America|Central America|American Express|American Airlines|American International|Indian Ocean|Native American|Turkish Airlines|Greek yogurt)\b/g;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const MATCHERS: [iso: string, re: RegExp][] = TABLE.map(([iso, phrases]) => [
  iso,
  // Letter lookarounds instead of \b: "U.S." ends in a dot, and \b is ASCII-only.
  new RegExp(`(?<![\\p{L}\\p{N}])(${phrases.split("|").map(escapeRe).join("|")})(?![\\p{L}\\p{N}])`, "u"),
]);

export function countriesIn(title: string, body: string, hinted: readonly string[] = []): string[] {
  const text = `${title}\n${body}`.replace(MASKS, " ");
  const found = new Set<string>(hinted.map((c) => c.toUpperCase()).filter((c) => /^[A-Z]{2}$/.test(c)));
  for (const [iso, re] of MATCHERS) if (re.test(text)) found.add(iso);
  return [...found].sort();
}
