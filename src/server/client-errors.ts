/**
 * Errors Node's HTTP parser meets before any route runs (headers too large, a request that is
 * not HTTP, one that never finishes arriving) still answer in the contract's error shape
 * (`{"error", "detail"}`), never Fastify's own. The status stays the transport's (431, 408,
 * 400), which clients and proxies understand; the body carries the contract's code.
 */
import type { Socket } from 'node:net';
import { newId } from '../store/ids.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, body] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          {
            error: 'invalid_request',
            detail: 'request headers: larger than this server accepts (16 KiB in all); send fewer or shorter headers',
          },
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, { error: 'timeout', detail: 'the request did not arrive in time; send it again' }]
        : [400, { error: 'invalid_request', detail: 'the request is not valid HTTP/1.1' }];
  const json = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${newId('req', 16)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(err);
}
