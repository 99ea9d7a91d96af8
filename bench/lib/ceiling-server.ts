/**
 * The ceiling: a uWebSockets.js hello-world that answers every request with fixed bytes (the same
 * body and content type peregrine answers the measured request with). Run as its own process:
 *   node dist/bench/lib/ceiling-server.js <port> <content-type> <body-file>
 */
import { readFileSync } from 'node:fs';
import uWS from 'uWebSockets.js';

const [port, contentType, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile ?? '/dev/null');
uWS.App()
  .any('/*', (res, req) => {
    req.getHeader('authorization'); // read a header, as any real handler does
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', contentType ?? 'application/json').end(body);
    });
  })
  .listen('127.0.0.1', Number(port), (sock) => {
    if (!sock) { console.error('ceiling: cannot listen'); process.exit(1); }
    console.log(`ceiling listening on http://127.0.0.1:${port}`);
  });
