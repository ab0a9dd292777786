/**
 * A stand-in for Postmark's `POST /email` on loopback (node:http), written from Postmark's
 * documentation rather than from our mailer: it checks the request as Postmark does (method,
 * path, Accept and Content-Type, the server token, the JSON fields) and answers as Postmark
 * documents. The recipient's local part picks a documented failure ("inactive@...").
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../../src/sim/serve-simulator.ts';

export type PostmarkEmail = {
  From: string;
  To: string;
  Subject: string;
  TextBody: string;
  HtmlBody: string;
  Headers: { Name: string; Value: string }[];
  MessageStream: string;
};

export type TestPostmark = {
  url: string;
  token: string;
  /** Emails Postmark accepted (answered 200). */
  accepted: PostmarkEmail[];
  /** Every request, valid or not. */
  requests: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  connections: number;
  close(): Promise<void>;
};

/** Documented failures, by the recipient's local part: [HTTP status, ErrorCode, Message]. */
const FAULTS: Record<string, [number, number, string]> = {
  inactive: [422, 406, 'You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: inactive@example.com.'],
  invalid: [422, 300, "Invalid email request: Error parsing 'To': Illegal email address."],
  notallowed: [422, 405, 'Not allowed to send: you have run out of credits.'],
  pending: [422, 412, 'Account is pending: you can only send to recipients at the domain of your From address.'],
  maynotsend: [422, 413, 'Account may not send.'],
  unknowncode: [422, 999, 'A code Postmark has not documented yet.'],
  // Not documented: an answer whose JSON holds half a surrogate pair.
  halfpair: [422, 300, 'Invalid email request: \ud800 in To.'],
  ratelimited: [429, 429, 'Rate limit exceeded.'],
  servererror: [500, 0, 'Internal server error.'],
  unavailable: [503, 100, 'Maintenance.'],
};

export async function startPostmark(token = 'test-server-token-6a1f'): Promise<TestPostmark> {
  const state: Omit<TestPostmark, 'url' | 'token' | 'close'> = { accepted: [], requests: [], connections: 0 };
  const answer = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/email') return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      if (req.headers['x-postmark-server-token'] !== token) {
        return answer(res, 401, { ErrorCode: 10, Message: 'The Server Token you provided in the X-Postmark-Server-Token request header was invalid.' });
      }
      if (req.headers.accept !== 'application/json' || req.headers['content-type'] !== 'application/json') {
        return answer(res, 422, { ErrorCode: 409, Message: 'JSON Required: Accept and Content-Type must be application/json.' });
      }
      let email: PostmarkEmail;
      try {
        email = JSON.parse(body) as PostmarkEmail;
      } catch {
        return answer(res, 422, { ErrorCode: 402, Message: 'Invalid JSON.' });
      }
      const problem = invalidEmail(email);
      if (problem) return answer(res, 422, { ErrorCode: 300, Message: `Invalid email request: ${problem}` });
      const fault = FAULTS[email.To.split('@')[0] ?? ''];
      if (fault) return answer(res, fault[0], { ErrorCode: fault[1], Message: fault[2] });
      state.accepted.push(email);
      answer(res, 200, {
        To: email.To,
        SubmittedAt: new Date().toISOString(),
        MessageID: `b7bc2f4a-e38e-4336-af7d-${String(state.accepted.length).padStart(12, '0')}`,
        ErrorCode: 0,
        Message: 'OK',
      });
    });
  });
  server.on('connection', () => state.connections++);
  keepIdleConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What Postmark refuses with ErrorCode 300: missing fields of the wrong type, no body at all. */
function invalidEmail(email: Partial<PostmarkEmail>): string | null {
  for (const field of ['From', 'To', 'Subject', 'MessageStream'] as const) {
    if (typeof email[field] !== 'string' || email[field] === '') return `${field} is required`;
  }
  if (typeof email.TextBody !== 'string' && typeof email.HtmlBody !== 'string') return 'Provide either email TextBody or HtmlBody or both.';
  if (email.Headers !== undefined) {
    const ok = Array.isArray(email.Headers) && email.Headers.every((h) => typeof h?.Name === 'string' && typeof h?.Value === 'string');
    if (!ok) return 'Headers must be a list of {Name, Value}';
  }
  return null;
}
