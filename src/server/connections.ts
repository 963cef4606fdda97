/**
 * A cap on the connections one client address holds open at once. A client over it gets an
 * HTTP 429 in the contract's shape at once, before it sends anything (never a silent close),
 * so a flood of idle or trickling connections from one address cannot take every socket.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '../store/ids.js';

const REFUSAL_BODY = JSON.stringify({ error: 'rate_limited', retry_after: 1 });
/** How long a refused client has to read the answer and close before its socket is dropped. */
const REFUSAL_LINGER_MS = 2000;

function refuse(socket: Socket): void {
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n` +
      `Retry-After: 1\r\nX-Request-Id: ${newId('req', 16)}\r\nConnection: close\r\n\r\n${REFUSAL_BODY}`,
  );
  // Read (and drop) what the client sends meanwhile: closing with unread bytes would reset
  // the connection, and the client could lose the answer.
  socket.resume();
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}

/** IPv4 clients of a dual-stack listener appear as ::ffff:a.b.c.d; count them as a.b.c.d. */
const addressOf = (socket: Socket) => (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');

/**
 * Put the per-address count in front of Node's own HTTP connection handling (max 0 = no cap,
 * e.g. behind a reverse proxy where every connection comes from one address).
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  const httpListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = addressOf(socket);
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) return refuse(socket);
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const listener of httpListeners) listener.call(server, socket);
  });
}
