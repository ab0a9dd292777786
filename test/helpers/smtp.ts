/** A real SMTP server (smtp-server) in this process, for tests of everything that sends mail. */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A real SMTP server in this process; a recipient's local part picks a fault ("rcpt451@..."). */
export type TestSmtp = {
  port: number;
  url: string;
  received: ParsedMail[];
  /** Every address a client named in RCPT TO, accepted or not, in order. */
  rcptTo: string[];
  connections: number;
  close(): Promise<void>;
};

export type TestSmtpOptions = {
  /** Holds each message's answer until the promise settles: a test orders its steps around a mail in flight. */
  beforeAccept?: () => Promise<void>;
};

export async function startSmtp(smtpOptions: TestSmtpOptions = {}): Promise<TestSmtp> {
  const state = { received: [] as ParsedMail[], rcptTo: [] as string[], connections: 0 };
  const failWith = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      state.rcptTo.push(address.address);
      const fault = /^rcpt(\d{3})@/.exec(address.address);
      if (fault) return callback(failWith(Number(fault[1]), `rejected by test (${fault[1]})`));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const fault = session.envelope.rcptTo.map((r) => /^data(\d{3})@/.exec(r.address)).find(Boolean);
        if (fault) return callback(failWith(Number(fault[1]), `message refused by test (${fault[1]})`));
        (smtpOptions.beforeAccept?.() ?? Promise.resolve())
          .then(() => simpleParser(Buffer.concat(chunks)))
          .then(
            (mail) => {
              state.received.push(mail);
              callback();
            },
            (err: Error) => callback(err),
          );
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // A client killed mid-session resets its connection: smtp-server reports that as an error event,
  // which is that client's fault and no failure of the server.
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received: state.received,
    rcptTo: state.rcptTo,
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
