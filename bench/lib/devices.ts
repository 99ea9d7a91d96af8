/**
 * Lean device traffic for the benchmarks: a minimal HTTP/1.1 client connection and one device's turn
 * (poll; with an open action, its deploymentBase and a closed/success report), cheap enough per request
 * that thousands of devices a second fit beside the server on the same cores.
 */
import { connect, type Socket } from 'node:net';

/**
 * One keep-alive HTTP/1.1 connection with one request in flight at a time (the others wait in a queue
 * here), parsing answers minimally (status line, Content-Length, body): far cheaper per request than
 * a general client, so thousands of devices a second fit beside the server and Redis on the same cores.
 */
export class Connection {
  readonly #socket: Socket;
  #buf: Buffer = Buffer.alloc(0);
  readonly #queue: { readonly text: string; readonly done: (r: { status: number; body: string }) => void }[] = [];
  #busy = false;

  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (d: Buffer) => this.#read(d));
    this.#socket.on('error', () => this.#fail());
    this.#socket.on('close', () => this.#fail());
  }

  request(method: string, path: string, headers: string, body?: string): Promise<{ status: number; body: string }> {
    const extra = body === undefined ? '' : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
    return new Promise((done) => {
      this.#queue.push({ text: `${method} ${path} HTTP/1.1\r\nhost: bench\r\n${headers}${extra}\r\n${body ?? ''}`, done });
      this.#next();
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #next(): void {
    const head = this.#queue[0];
    if (this.#busy || head === undefined) return;
    this.#busy = true;
    this.#socket.write(head.text);
  }

  /** The connection is gone: what waits fails (status 0) rather than hanging. */
  #fail(): void {
    for (const q of this.#queue.splice(0)) q.done({ status: 0, body: '' });
  }

  #read(d: Buffer): void {
    this.#buf = this.#buf.length === 0 ? d : Buffer.concat([this.#buf, d]);
    const end = this.#buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.#buf.toString('latin1', 0, end);
    const length = Number(/content-length: *([0-9]+)/i.exec(head)?.[1] ?? 0);
    if (this.#buf.length < end + 4 + length) return;
    const body = this.#buf.toString('utf8', end + 4, end + 4 + length);
    this.#buf = this.#buf.subarray(end + 4 + length);
    this.#busy = false;
    this.#queue.shift()?.done({ status: Number(head.slice(9, 12)), body });
    this.#next();
  }
}

/** What one device's turn came to: no open action, reported closed/success, or an answer that was not 200. */
export type Outcome = 'idle' | 'reported' | 'failed';

const SUCCESS = JSON.stringify({ status: { execution: 'closed', result: { finished: 'success' } } });

/** dev-`i` polls; with an open action it fetches its deploymentBase and reports closed/success, all on `conn`. */
export async function answerDevice(conn: Connection, token: string, i: number, tenant = 'DEFAULT'): Promise<Outcome> {
  const auth = `authorization: TargetToken ${token}\r\n`;
  const path = `/${tenant}/controller/v1/dev-${i}`;
  const res = await conn.request('GET', path, auth);
  if (res.status !== 200) return 'failed';
  const action = /deploymentBase\/([0-9]+)/.exec(res.body)?.[1];
  if (action === undefined) return 'idle';
  const dep = await conn.request('GET', `${path}/deploymentBase/${action}`, auth);
  if (dep.status !== 200) return 'failed';
  const fb = await conn.request('POST', `${path}/deploymentBase/${action}/feedback`, auth, SUCCESS);
  return fb.status === 200 ? 'reported' : 'failed';
}
