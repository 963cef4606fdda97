/** A local SMTP server (npm smtp-server) on 127.0.0.1: takes AUTH PLAIN/LOGIN without TLS and keeps each message, decoded. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  from: string;
  to: string[];
  /** The whole message, quoted-printable and base64 parts decoded (enough to search its text). */
  text: string;
  subject: string;
  user?: string;
}

export interface SmtpReceiver {
  port: number;
  mails: Mail[];
  /** Refuse the next `n` messages with 451 (a temporary failure). */
  failNext(n: number): void;
  waitFor(n: number, timeoutMs?: number): Promise<Mail[]>;
  close(): Promise<void>;
}

const qp = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');

/** Decodes the parts a message's text is in (good enough for nodemailer's output). */
function decode(raw: string): string {
  const b64 = [
    ...raw.matchAll(/Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/g),
  ].map((m) => Buffer.from(m[1].replace(/\s+/g, ''), 'base64').toString('utf8'));
  return [qp(raw), ...b64].join('\n');
}

export async function startSmtpReceiver(auth: { user: string; pass: string }): Promise<SmtpReceiver> {
  const mails: Mail[] = [];
  let failing = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(a, _session, cb) {
      if (a.username === auth.user && a.password === auth.pass) cb(null, { user: a.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failing > 0) {
          failing--;
          const e = new Error('try again later') as Error & { responseCode: number };
          e.responseCode = 451;
          return cb(e);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          text: decode(raw),
          subject: subject.startsWith('=?')
            ? decode(subject.replace(/=\?utf-8\?Q\?(.*?)\?=/gi, (_m, t: string) => t.replace(/_/g, ' ')))
            : subject,
          user: typeof session.user === 'string' ? session.user : undefined,
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    failNext(n) {
      failing = n;
    },
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < n) {
        if (Date.now() > until)
          throw new Error(`smtp receiver: ${mails.length} of ${n} messages after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return mails;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
