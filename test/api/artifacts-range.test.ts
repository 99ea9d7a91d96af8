import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { artifactReply, md5sumReply, type ArtifactFile } from '../../src/artifacts/download.js';
import type { Route } from '../../src/http/types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-range-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function artifactFile(name: string, data: Buffer): ArtifactFile {
  const path = join(dir, name);
  writeFileSync(path, data);
  const hex = (alg: string) => createHash(alg).update(data).digest('hex');
  return { path, size: data.length, mtimeMs: statSync(path).mtimeMs, sha1: hex('sha1'), md5: hex('md5'), filename: `${name}.bin` };
}

const small = randomBytes(100_000);
const big = randomBytes(20 * 1024 * 1024);
const files: Record<string, ArtifactFile> = { small: artifactFile('small', small), big: artifactFile('big', big) };
// the same artifacts as hot binaries in memory (ArtifactStorage.openHot), with a path that does not exist: any read of the file fails
const hot: Record<string, ArtifactFile> = {
  small: { ...files['small']!, path: join(dir, 'missing'), bytes: small },
  big: { ...files['big']!, path: join(dir, 'missing'), bytes: big },
};

// test-only routes: the download helpers behind real HTTP, without the DDI/Management lookups
const routes: Route[] = [
  { method: 'GET', path: '/test/artifacts/:name', produces: 'other', handler: (req) => artifactReply(req, files[req.params['name'] ?? ''] as ArtifactFile) },
  { method: 'GET', path: '/test/hot/:name', produces: 'other', handler: (req) => artifactReply(req, hot[req.params['name'] ?? ''] as ArtifactFile) },
  { method: 'GET', path: '/test/md5/:name', produces: 'other', handler: (req) => md5sumReply((files[req.params['name'] ?? ''] as ArtifactFile).md5, 'small.bin') },
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { routes });
});

/** How many of this process's descriptors point at `path` (Linux; 0 elsewhere). */
function openDescriptorsOf(path: string): number {
  if (!existsSync('/proc/self/fd')) return 0;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

async function fetchBytes(target: string, init?: RequestInit) {
  const res = await fetch(target, init);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

describe.each([['from the file', 'artifacts'], ['from memory (a hot binary)', 'hot']])('artifact download over HTTP, %s', (_source, route) => {
  const url = (name = 'small') => `${server.url}/test/${route}/${name}`;

  it('serves the whole file with ETag, Accept-Ranges, Last-Modified and Content-Disposition', async () => {
    const { res, body } = await fetchBytes(url());
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${files['small']?.sha1}"`);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('last-modified')).toBe(new Date(files['small']!.mtimeMs).toUTCString());
    expect(res.headers.get('content-disposition')).toBe('attachment;filename=small.bin');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe(String(small.length));
    expect(body.equals(small)).toBe(true);
  });

  it('serves a single range as 206 with the exact bytes', async () => {
    const { res, body } = await fetchBytes(url(), { headers: { range: 'bytes=1000-1999' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 1000-1999/${small.length}`);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(body.equals(small.subarray(1000, 2000))).toBe(true);
  });

  it('serves several ranges as multipart/byteranges whose parts are exact', async () => {
    const { res, body } = await fetchBytes(url(), { headers: { range: 'bytes=0-99, 50000-50099, -10' } });
    expect(res.status).toBe(206);
    const boundary = /^multipart\/byteranges; boundary=(\S+)$/.exec(res.headers.get('content-type') ?? '')?.[1] ?? '';
    expect(boundary).not.toBe('');
    expect(res.headers.get('content-length')).toBe(String(body.length));
    // split on the delimiter (RFC 2046): parts are headers CRLF CRLF data
    const text = body.toString('latin1');
    expect(text.startsWith(`--${boundary}\r\n`)).toBe(true);
    expect(text.endsWith(`\r\n--${boundary}--`)).toBe(true);
    const parts = text.slice(`--${boundary}\r\n`.length, -`\r\n--${boundary}--`.length).split(`\r\n--${boundary}\r\n`);
    const n = small.length;
    const want = [[0, 99], [50000, 50099], [n - 10, n - 1]] as const;
    expect(parts).toHaveLength(want.length);
    parts.forEach((part, i) => {
      const [start, end] = want[i] as readonly [number, number];
      const split = part.indexOf('\r\n\r\n');
      expect(part.slice(0, split)).toBe(`Content-Type: application/octet-stream\r\nContent-Range: bytes ${start}-${end}/${n}`);
      expect(Buffer.from(part.slice(split + 4), 'latin1').equals(small.subarray(start, end + 1))).toBe(true);
    });
  });

  it.each([
    ['unsatisfiable', 'bytes=100000-'],
    ['garbage', 'bytes=abc'],
    ['inverted', 'bytes=10-1'],
  ])('answers a %s Range with 416, Content-Range bytes */len and an error body', async (_name, range) => {
    const res = await fetch(url(), { headers: { range } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${small.length}`);
    const body = (await res.json()) as { errorCode: string; message: string };
    expect(body.errorCode).toBe('hawkbit.server.error.rest.range.notSatisfiable');
    expect(body.message).not.toBe('');
  });

  it('serves the whole file when If-Range does not match', async () => {
    const { res, body } = await fetchBytes(url(), { headers: { range: 'bytes=0-9', 'if-range': '"0000000000000000000000000000000000000000"' } });
    expect(res.status).toBe(200);
    expect(body.equals(small)).toBe(true);
    const matching = await fetchBytes(url(), { headers: { range: 'bytes=0-9', 'if-range': `"${files['small']?.sha1}"` } });
    expect(matching.res.status).toBe(206);
    expect(matching.body.equals(small.subarray(0, 10))).toBe(true);
  });

  it('answers 412 when If-Match differs and 304 when If-None-Match matches', async () => {
    const failed = await fetch(url(), { headers: { 'if-match': '"0000"' } });
    expect(failed.status).toBe(412);
    expect(((await failed.json()) as { errorCode: string }).errorCode).toBe('hawkbit.server.error.rest.precondition.failed');
    const notModified = await fetchBytes(url(), { headers: { 'if-none-match': `"${files['small']?.sha1}"` } });
    expect(notModified.res.status).toBe(304);
    expect(notModified.body.length).toBe(0);
  });

  it('answers HEAD with the headers and length but no body', async () => {
    const { res, body } = await fetchBytes(url(), { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(small.length));
    expect(res.headers.get('etag')).toBe(`"${files['small']?.sha1}"`);
    expect(body.length).toBe(0);
  });

  it('serves the MD5SUM file', async () => {
    const res = await fetch(`${server.url}/test/md5/small`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`${files['small']?.md5}  small.bin`);
    expect(res.headers.get('content-disposition')).toBe('attachment;filename=small.bin.MD5SUM');
  });

  it('delivers 20 MB intact to a slow reader (backpressure)', async () => {
    const received = await new Promise<{ status: number; sha1: string; bytes: number }>((resolve, reject) => {
      get(url('big'), (res) => {
        const hash = createHash('sha1');
        let bytes = 0;
        res.pause(); // let the socket buffers fill so the server must wait for onWritable
        setTimeout(() => res.resume(), 300);
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          bytes += chunk.length;
          if (bytes % (4 * 1024 * 1024) < chunk.length) {
            res.pause();
            setTimeout(() => res.resume(), 50);
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, sha1: hash.digest('hex'), bytes }));
        res.on('error', reject);
      }).on('error', reject);
    });
    expect(received).toEqual({ status: 200, sha1: files['big']?.sha1, bytes: big.length });
    expect(openDescriptorsOf(files['big']!.path)).toBe(0); // closed once the last bytes were read
  });

  it('survives a client that goes away mid-download', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = get(url('big'), (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
    });
    await vi.waitFor(() => expect(openDescriptorsOf(files['big']!.path)).toBe(0), { timeout: 5000, interval: 20 }); // the download closed its file handle
    const { res, body } = await fetchBytes(url(), { headers: { range: 'bytes=0-0' } });
    expect(res.status).toBe(206);
    expect(body.equals(small.subarray(0, 1))).toBe(true);
  });
});
