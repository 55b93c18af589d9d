/**
 * GDELT locates stories with FIPS 10-4 country codes, which differ from ISO 3166-1 for many
 * countries (UK → GB, GM → DE, CH → CN, JA → JP). The spec's country_codes are ISO-2, so
 * GKG locations go through this table; codes not listed are dropped rather than guessed.
 */
const TABLE = [
  "AE:AE AF:AF AG:DZ AJ:AZ AL:AL AM:AM AO:AO AR:AR AS:AU AU:AT BA:BH BE:BE BG:BD BK:BA",
  "BL:BO BM:MM BO:BY BR:BR BU:BG CA:CA CE:LK CF:CG CG:CD CH:CN CI:CL CO:CO CS:CR CU:CU",
  "CY:CY DA:DK DR:DO EC:EC EG:EG EI:IE EN:EE ET:ET EZ:CZ FI:FI FR:FR GG:GE GH:GH GM:DE",
  "GR:GR HK:HK HR:HR HU:HU IC:IS ID:ID IN:IN IR:IR IS:IL IT:IT IV:CI IZ:IQ JA:JP JO:JO",
  "KE:KE KN:KP KS:KR KU:KW KZ:KZ LE:LB LG:LV LH:LT LO:SK LU:LU LY:LY MK:MK MO:MA MT:MT",
  "MU:OM MX:MX MY:MY NI:NG NL:NL NO:NO NU:NI NZ:NZ PA:PY PE:PE PK:PK PL:PL PM:PA PO:PT",
  "QA:QA RI:RS RO:RO RP:PH RS:RU SA:SA SF:ZA SI:SI SN:SG SP:ES SU:SD SW:SE SY:SY SZ:CH",
  "TH:TH TS:TN TU:TR TW:TW TZ:TZ UG:UG UK:GB UP:UA US:US UY:UY UZ:UZ VE:VE VM:VN YM:YE",
  "ZA:ZM ZI:ZW",
].join(" ");

const FIPS_TO_ISO = new Map(TABLE.split(" ").map((pair) => pair.split(":") as [string, string]));

export function fipsToIso(fips: string): string | null {
  return FIPS_TO_ISO.get(fips.trim().toUpperCase()) ?? null;
}
