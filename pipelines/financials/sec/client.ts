/**
 * The data.sec.gov client. SEC fair-access rules: declare who you are in the User-Agent
 * ("Company Name admin@example.com"), stay at or under 10 requests per second, and back
 * off when told to. Every request takes a token from one bucket; 429, 5xx and network
 * failures are retried with exponential backoff (Retry-After honoured when given).
 */
import { normalizeCik } from "../../../domain/financials/fields.ts";
import { TokenBucket } from "./token-bucket.ts";

export const SEC_MAX_REQUESTS_PER_SECOND = 10;

export interface SecClientOptions {
  userAgent: string;
  /** Default https://data.sec.gov */
  baseUrl?: string;
  /** Default https://www.sec.gov/files/company_tickers.json */
  tickersUrl?: string;
  /** At most 10 (the SEC limit). */
  maxRequestsPerSecond?: number;
  /** Tries after the first (default 4). */
  retries?: number;
  /** First backoff delay; doubles per retry (default 500 ms). */
  backoffMs?: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

export class SecHttpError extends Error {
  override readonly name = "SecHttpError";
  constructor(
    readonly status: number,
    readonly url: string,
  ) {
    super(`SEC request failed: ${status} ${url}`);
  }
}

/** SEC asks for a name and a contact e-mail address. */
const USER_AGENT_RE = /\S+.*\s+\S+@\S+\.\S+/;

export function validateUserAgent(ua: string): string | null {
  return USER_AGENT_RE.test(ua.trim())
    ? null
    : 'must name the requester and a contact e-mail, e.g. "Acme Research ops@acme.example"';
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

export class SecClient {
  private readonly bucket: TokenBucket;
  private readonly baseUrl: string;
  private readonly tickersUrl: string;

  constructor(private readonly opts: SecClientOptions) {
    const problem = validateUserAgent(opts.userAgent);
    if (problem) throw new Error(`SEC user agent ${problem}`);
    const rate = opts.maxRequestsPerSecond ?? SEC_MAX_REQUESTS_PER_SECOND;
    if (rate <= 0 || rate > SEC_MAX_REQUESTS_PER_SECOND)
      throw new Error("SEC request rate must be in (0, 10] per second");
    this.bucket = new TokenBucket(rate);
    this.baseUrl = (opts.baseUrl ?? "https://data.sec.gov").replace(/\/+$/, "");
    this.tickersUrl = opts.tickersUrl ?? "https://www.sec.gov/files/company_tickers.json";
  }

  submissions(cik: string): Promise<{ json: unknown; text: string }> {
    return this.getJson(`${this.baseUrl}/submissions/CIK${this.cik(cik)}.json`);
  }

  companyFacts(cik: string): Promise<{ json: unknown; text: string }> {
    return this.getJson(`${this.baseUrl}/api/xbrl/companyfacts/CIK${this.cik(cik)}.json`);
  }

  tickers(): Promise<{ json: unknown; text: string }> {
    return this.getJson(this.tickersUrl);
  }

  private cik(raw: string): string {
    const c = normalizeCik(raw);
    if (!c) throw new Error(`bad CIK ${raw}`);
    return c;
  }

  async getJson(url: string): Promise<{ json: unknown; text: string }> {
    const retries = this.opts.retries ?? 4;
    const base = this.opts.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      await this.bucket.take();
      let res: Response | null = null;
      let failure: unknown = null;
      try {
        res = await fetch(url, {
          headers: {
            "User-Agent": this.opts.userAgent,
            Accept: "application/json",
            "Accept-Encoding": "gzip, deflate",
          },
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
        });
      } catch (err) {
        failure = err;
      }
      if (res?.ok) {
        const text = await res.text();
        return { json: JSON.parse(text) as unknown, text };
      }
      const retryable = res === null || RETRYABLE.has(res.status);
      if (res) await res.body?.cancel();
      if (!retryable || attempt >= retries) {
        if (res) throw new SecHttpError(res.status, url);
        throw failure instanceof Error ? failure : new Error(String(failure));
      }
      const retryAfter = Number(res?.headers.get("retry-after"));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : base * 2 ** attempt;
      await Bun.sleep(delay);
    }
  }
}
