/**
 * The ceiling: a uWebSockets.js hello-world that answers every request with fixed bytes (the same
 * status, headers and body peregrine answers the measured request with). Run as its own process:
 *   node dist/bench/lib/ceiling-server.js <port> <content-type> <body-file> [<status line> <headers JSON> <threads>]
 * With threads > 1, that many worker threads each run an App listening on the same port (uSockets
 * sets SO_REUSEPORT; the kernel spreads the connections): the ceiling for a server on N loops.
 */
import { readFileSync } from 'node:fs';
import { isMainThread, Worker } from 'node:worker_threads';
import uWS from 'uWebSockets.js';

const [port, contentType, bodyFile, status = '200 OK', headersJson = '{}', threads = '1'] = process.argv.slice(2);
const body = readFileSync(bodyFile ?? '/dev/null');
const headers = Object.entries(JSON.parse(headersJson) as Record<string, string>);
const noBody = status.startsWith('304');

function serve(onListening: () => void): void {
  uWS.App()
    .any('/*', (res, req) => {
      req.getHeader('authorization'); // read a header, as any real handler does
      res.cork(() => {
        res.writeStatus(status);
        for (const [name, value] of headers) res.writeHeader(name, value);
        if (noBody) res.endWithoutBody();
        else res.writeHeader('Content-Type', contentType ?? 'application/json').end(body);
      });
    })
    .listen('127.0.0.1', Number(port), (sock) => {
      if (!sock) { console.error('ceiling: cannot listen'); process.exit(1); }
      onListening();
    });
}

const n = Number(threads);
if (!isMainThread) serve(() => undefined);
else if (n <= 1) serve(() => console.log(`ceiling listening on http://127.0.0.1:${port}`));
else {
  let up = 0;
  for (let i = 0; i < n; i++) {
    const w = new Worker(new URL(import.meta.url), { argv: process.argv.slice(2) });
    w.once('online', () => {
      // give the worker's listen a moment; the bench only starts loading after the line below
      if (++up === n) setTimeout(() => console.log(`ceiling listening on http://127.0.0.1:${port} (${n} threads)`), 300);
    });
  }
}
