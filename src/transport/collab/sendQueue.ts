import WebSocket from 'ws';
import { CLOSE } from './context.ts';

/**
 * Bounds what one room socket may have waiting to be written (issue 23). Hocuspocus sends
 * every update of a board to every connection with `ws.send`, which buffers without limit
 * when a client stops reading; a slow client would hold the board's whole traffic in this
 * process's memory. Here each send first looks at the socket's backlog: pending messages
 * (sent, their write not yet done) and buffered bytes. Over either bound the socket is
 * closed with SUBSCRIBER_TOO_SLOW (4408) and the message dropped; the client reconnects
 * and resynchronises from the document. The check never throws and never waits, so the
 * broadcast to the other connections goes on at once.
 */
export function boundSendQueue(ws: WebSocket, bounds: { maxMessages: number; maxBytes: number }, onTooSlow: () => void): void {
  let pending = 0;
  let closed = false;
  const send = ws.send.bind(ws);
  ws.send = ((data: Uint8Array, optionsOrCb?: unknown, cb?: (err?: Error) => void) => {
    const callback = typeof optionsOrCb === 'function' ? (optionsOrCb as (err?: Error) => void) : cb;
    const options = typeof optionsOrCb === 'function' ? {} : (optionsOrCb ?? {});
    if (ws.readyState !== WebSocket.OPEN) {
      send(data, options, callback);
      return;
    }
    if (pending >= bounds.maxMessages || ws.bufferedAmount > bounds.maxBytes) {
      if (!closed) {
        closed = true;
        onTooSlow();
        ws.close(CLOSE.tooSlow.code, CLOSE.tooSlow.reason);
      }
      return;
    }
    pending++;
    send(data, options, (err?: Error) => {
      pending--;
      callback?.(err);
    });
  }) as typeof ws.send;
}
