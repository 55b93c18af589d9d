/**
 * A real SMTP server in-process on a random loopback port (the `smtp-server` package),
 * keeping every message it receives, parsed with `mailparser`. Recipients at
 * `@reject.test` are refused at RCPT TO, to exercise partial and total refusals.
 */
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: the test checks what is sent, not TLS (that is nodemailer's own).
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address.endsWith("@reject.test")) {
        const err = Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 });
        cb(err);
        return;
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
            received.push({ envelope: { from, to: session.envelope.rcptTo.map((r) => r.address) }, parsed });
            cb();
          },
          (err: Error) => cb(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The bare addresses of a parsed To/Cc header. */
export function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ""));
}
