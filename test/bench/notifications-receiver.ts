/**
 * The notification benchmark's webhook receiver, run as a child process (a real receiver is
 * another machine; one in the sender's process would take the event loop it measures): answers
 * every POST 200 at once, and records when each arrived. Driven over the IPC channel.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverCommand =
  | { type: 'reset' }
  /** Answered once `count` POSTs have arrived since the last reset, or after `timeoutMs` with what did. */
  | { type: 'collect'; count: number; timeoutMs: number };

export type ReceiverRequest = { id: number } & ReceiverCommand;

/** Arrivals in epoch ms (Date.now(), comparable with the parent's); bytes and header names of the bodies since the last reset. */
export type Collected = { arrivals: number[]; bodyBytes: number; headerNames: string[] };

export type ReceiverMessage = { type: 'ready'; port: number } | { type: 'reset'; id: number } | ({ type: 'collected'; id: number } & Collected);

const KEEP_ALIVE_MS = 60_000;

let arrivals: number[] = [];
let bodyBytes = 0;
let headerNames: string[] = [];
let waiters: { id: number; count: number; timer: NodeJS.Timeout }[] = [];

const send = (message: ReceiverMessage) => process.send!(message);
const reply = (id: number) => send({ type: 'collected', id, arrivals, bodyBytes, headerNames });

function received(req: IncomingMessage, bytes: number): void {
  arrivals.push(Date.now());
  bodyBytes += bytes;
  headerNames = Object.keys(req.headers).sort();
  if (waiters.length === 0) return;
  waiters = waiters.filter((w) => {
    if (arrivals.length < w.count) return true;
    clearTimeout(w.timer);
    reply(w.id);
    return false;
  });
}

const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    if (req.method === 'POST') received(req, bytes);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
// Connections stay open between rounds, for the deliverer's Agent and the baseline's alike.
server.keepAliveTimeout = KEEP_ALIVE_MS;

process.on('message', (message: ReceiverRequest) => {
  if (message.type === 'reset') {
    arrivals = [];
    bodyBytes = 0;
    headerNames = [];
    send({ type: 'reset', id: message.id });
  } else if (arrivals.length >= message.count) {
    reply(message.id);
  } else {
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w.id !== message.id);
      reply(message.id);
    }, message.timeoutMs);
    waiters.push({ id: message.id, count: message.count, timer });
  }
});
// The parent closing the channel (or dying) ends the receiver.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => send({ type: 'ready', port: (server.address() as AddressInfo).port }));
