/** Raw bytes over a loopback TCP socket: the requests fetch refuses to send (malformed, oversized, cut off). */
import { connect, type Socket } from 'node:net';

export type RawAnswer = { status: number; headers: Record<string, string>; body: string; raw: string };

/** Sends `bytes` and reads until the server closes the connection. */
export function rawRequest(url: string, bytes: string, timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let raw = '';
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(raw)}`))), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (raw += chunk));
    // A reset after the answer was read still leaves the answer.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(raw));
    });
  });
}

/** Sends `bytes` (a request whose body is not complete) and closes the connection `afterMs` later. */
export function abortedUpload(url: string, bytes: string, afterMs: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname, () => {
      socket.write(bytes);
      setTimeout(() => socket.destroy(), afterMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

function parseAnswer(raw: string): RawAnswer {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: split === -1 ? '' : raw.slice(split + 4), raw };
}
