import { isIPv6 } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { freePort } from './net';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

/**
 * A real SMTP server that keeps every message it accepts: on loopback, or on `listenHost` (0.0.0.0)
 * with `url` naming `publicHost`, for senders in containers.
 */
export async function startSmtpServer(options: { listenHost?: string; publicHost?: string } = {}) {
  const { listenHost = '127.0.0.1', publicHost = '127.0.0.1' } = options;
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, listenHost, resolve));
  return {
    url: `smtp://${isIPv6(publicHost) ? `[${publicHost}]` : publicHost}:${port}`,
    received,
    /** Waits for a mail to `to` and returns its six-digit code. */
    async codeFor(to: string, timeoutMs = 5000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = [...received].reverse().find((m) => m.to.includes(to));
        const code = mail?.raw.match(/\b(\d{6})\b/)?.[1];
        if (code) return code;
        if (Date.now() > deadline) throw new Error(`no code mailed to ${to}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
