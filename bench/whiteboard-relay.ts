import { WebSocketServer } from 'ws';

/**
 * The whiteboard bench's baseline server: a bare WebSocket relay that forwards every
 * message to every other client of the same port, with no document, protocol, auth or
 * storage. Prints its port on stdout.
 */
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    for (const other of wss.clients) if (other !== ws && other.readyState === other.OPEN) other.send(data, { binary: isBinary });
  });
});
wss.on('listening', () => {
  const address = wss.address();
  console.log(typeof address === 'object' && address ? address.port : address);
});
process.on('SIGTERM', () => {
  wss.close();
  process.exit(0);
});
