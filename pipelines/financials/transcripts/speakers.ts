/**
 * Who is who on a call: participant lines become executives ({name, title}) and analysts
 * ({name, firm}); each utterance's speaker is matched to one of them. Speaker labels and
 * participant lines do not always spell a name the same way ("Matt Ellis" vs
 * "Matthew D. Ellis"), so a last-name + first-initial match backs up the exact one.
 */
import type { SpeakerRole, TranscriptAnalyst, TranscriptExecutive } from "../../../domain/financials/transcripts.ts";
import type { RawUtterance } from "./parse.ts";

export interface CallParticipants {
  executives: TranscriptExecutive[];
  analysts: TranscriptAnalyst[];
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9 ]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A "Name--Firm" line without the "-- Analyst" suffix is still an analyst when the
 * operator introduces that person as asking a question.
 */
function introducedAsQuestioner(name: string, operatorText: string): boolean {
  const re = new RegExp(`question[^.?!]{0,80}\\b${escapeRe(name)}\\b`, "i");
  return re.test(operatorText);
}

export function classifyParticipants(lines: string[], utterances: RawUtterance[]): CallParticipants {
  const operatorText = utterances
    .filter((u) => u.section === "q_and_a" && u.speaker && /^operator$/i.test(u.speaker))
    .map((u) => u.text)
    .join(" ");
  const executives: TranscriptExecutive[] = [];
  const analysts: TranscriptAnalyst[] = [];
  for (const line of lines) {
    const parts = line
      .split("--")
      .map((p) => p.trim())
      .filter(Boolean);
    const name = parts[0];
    if (!name) continue;
    if (parts.length >= 3 && /^analyst$/i.test(parts.at(-1) ?? "")) {
      analysts.push({ name, firm: parts.slice(1, -1).join(" -- ") || null });
    } else if (parts.length === 2 && introducedAsQuestioner(name, operatorText)) {
      analysts.push({ name, firm: parts[1] ?? null });
    } else {
      executives.push({ name, title: parts.slice(1).join(" -- ") || null });
    }
  }
  return { executives, analysts };
}

export class SpeakerMatcher {
  private readonly exact = new Map<string, SpeakerRole>();
  private readonly loose = new Map<string, SpeakerRole | "ambiguous">();

  constructor(p: CallParticipants) {
    const add = (name: string, role: SpeakerRole) => {
      const n = norm(name);
      this.exact.set(n, role);
      const key = SpeakerMatcher.looseKey(n);
      if (key) this.loose.set(key, this.loose.has(key) && this.loose.get(key) !== role ? "ambiguous" : role);
    };
    for (const e of p.executives) add(e.name, "executive");
    for (const a of p.analysts) add(a.name, "analyst");
  }

  private static looseKey(n: string): string | null {
    const words = n.split(" ");
    const first = words[0];
    const last = words.at(-1);
    return first && last && words.length > 1 ? `${first[0]} ${last}` : null;
  }

  role(speaker: string | null): SpeakerRole | null {
    if (speaker === null) return null;
    const n = norm(speaker);
    if (n === "operator") return "operator";
    const hit = this.exact.get(n);
    if (hit) return hit;
    const key = SpeakerMatcher.looseKey(n);
    const loose = key ? this.loose.get(key) : undefined;
    return loose && loose !== "ambiguous" ? loose : "unknown";
  }
}

const WORD_RE = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;

export function countWords(text: string): number {
  return text.match(WORD_RE)?.length ?? 0;
}
