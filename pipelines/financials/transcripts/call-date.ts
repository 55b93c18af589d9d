/**
 * The call date, only when the transcript states it: a dated header line ("Nov 16, 2021,
 * 9:00 a.m. ET"), or the opening remarks' "information as of July 28, 2021", "Form 8-K
 * dated October 14, 2021" or "today, Tuesday, November 16, 2021". Nothing is inferred
 * from the fiscal period: a call with no stated date has call_date null.
 */

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

const MONTH =
  "(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const DATE = `${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`;

const HEADER_RE = new RegExp(`^${DATE}\\b`, "i");
const REMARK_RES = [
  // "as of" alone also dates balances ("cash as of December 31"): only a safe-harbour
  // sentence about the information or statements themselves counts.
  new RegExp(`\\b(?:information|statements?|remarks)[^.]{0,40}?\\bas of (?:today,?\\s+)?${DATE}`, "i"),
  new RegExp(`\\bas of today,?\\s+${DATE}`, "i"),
  new RegExp(`\\b8-K\\s+dated\\s+${DATE}`, "i"),
  new RegExp(`\\btoday,?\\s+(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day,?\\s+)?${DATE}`, "i"),
];

/** How many opening utterances may carry the date (operator, IR safe-harbour, CEO). */
const OPENING_UTTERANCES = 4;

function toIso(month: string, day: string, year: string): string | null {
  const m = MONTHS.findIndex((name) => name.startsWith(month.toLowerCase().replace(".", "").slice(0, 3)));
  const d = Number(day);
  const y = Number(year);
  if (m < 0 || y < 1990 || y > 2100) return null;
  const date = new Date(Date.UTC(y, m, d));
  // Reject dates like February 30 that Date would roll over.
  if (date.getUTCMonth() !== m || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

export function extractCallDate(headerTexts: string[], openingTexts: string[]): string | null {
  for (const h of headerTexts) {
    const m = HEADER_RE.exec(h.trim());
    if (m?.[1] && m[2] && m[3]) return toIso(m[1], m[2], m[3]);
  }
  for (const text of openingTexts.slice(0, OPENING_UTTERANCES)) {
    for (const re of REMARK_RES) {
      const m = re.exec(text);
      if (m?.[1] && m[2] && m[3]) {
        const iso = toIso(m[1], m[2], m[3]);
        if (iso) return iso;
      }
    }
  }
  return null;
}
