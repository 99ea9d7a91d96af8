import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { artifactReply, contentDisposition, md5sumReply, type ArtifactFile } from '../../../src/artifacts/download.js';
import { HttpRequest } from '../../../src/http/request.js';
import type { Reply } from '../../../src/http/types.js';
import { appErrorOf as thrown } from '../../helpers/app-error.js';

const dir = mkdtempSync(join(tmpdir(), 'peregrine-download-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = randomBytes(10_000);
const path = join(dir, 'blob');
writeFileSync(path, data);
const file: ArtifactFile = {
  path,
  size: data.length,
  mtimeMs: Date.UTC(2024, 4, 6, 7, 8, 9, 500),
  sha1: createHash('sha1').update(data).digest('hex'),
  md5: createHash('md5').update(data).digest('hex'),
  filename: 'image.bin',
};
const etag = `"${file.sha1}"`;
const lastModified = 'Mon, 06 May 2024 07:08:09 GMT';

function request(headers: Record<string, string> = {}, method = 'GET'): HttpRequest {
  return new HttpRequest({ method, path: '/x', rawQuery: '', headers, params: {}, remote: new Uint8Array([127, 0, 0, 1]), fromTrustedProxy: false, fallbackHost: 'x' });
}

async function bodyOf(reply: Reply): Promise<Buffer> {
  expect(reply.stream).toBeDefined();
  const parts: Buffer[] = [];
  for await (const chunk of reply.stream!.chunks()) parts.push(chunk);
  const body = Buffer.concat(parts);
  expect(body.length).toBe(reply.stream!.length); // the announced length is exact
  return body;
}

describe('artifactReply', () => {
  it('serves the whole file with hawkBit headers', async () => {
    const reply = artifactReply(request(), file);
    expect(reply.status).toBe(200);
    expect(reply.headers).toEqual({
      ETag: etag,
      'Last-Modified': lastModified,
      'Accept-Ranges': 'bytes',
      'Content-Disposition': 'attachment;filename=image.bin',
      'Content-Type': 'application/octet-stream',
      'X-Content-Type-Options': 'nosniff',
    });
    expect((await bodyOf(reply)).equals(data)).toBe(true);
  });

  it('serves one range as 206 with Content-Range', async () => {
    const reply = artifactReply(request({ range: 'bytes=100-199' }), file);
    expect(reply.status).toBe(206);
    expect(reply.headers?.['Content-Range']).toBe(`bytes 100-199/${data.length}`);
    expect((await bodyOf(reply)).equals(data.subarray(100, 200))).toBe(true);
  });

  it('serves several ranges as multipart/byteranges in hawkBit layout with an exact length', async () => {
    const reply = artifactReply(request({ range: 'bytes=0-9,-5' }), file);
    expect(reply.status).toBe(206);
    const type = reply.headers?.['Content-Type'] ?? '';
    const boundary = /^multipart\/byteranges; boundary=(\S+)$/.exec(type)?.[1];
    expect(boundary).toBeDefined();
    expect(reply.headers?.['Content-Range']).toBeUndefined();
    const n = data.length;
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-9/${n}\r\n\r\n`),
      data.subarray(0, 10),
      Buffer.from(`\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${n - 5}-${n - 1}/${n}\r\n\r\n`),
      data.subarray(n - 5),
      Buffer.from(`\r\n--${boundary}--`),
    ]);
    expect((await bodyOf(reply)).equals(expected)).toBe(true);
  });

  it.each([
    ['unsatisfiable', 'bytes=20000-', 'lies outside'],
    ['garbage', 'bytes=abc', 'is not of the form'],
    ['inverted', 'bytes=9-1', 'ends before it starts'],
    ['another unit', 'items=0-1', 'not supported'],
  ])('answers a %s Range with 416 and Content-Range bytes */size', (_name, range, message) => {
    const err = thrown(() => artifactReply(request({ range }), file));
    expect(err.code).toBe('RANGE_NOT_SATISFIABLE');
    expect(err.status).toBe(416);
    expect(err.message).toContain(message);
    expect(err.headers).toEqual({ 'Content-Range': `bytes */${data.length}` });
  });

  it.each([
    ['matching ETag', etag, 206],
    ['matching date', lastModified, 206],
    ['other ETag', '"feed"', 200],
    ['older date', 'Mon, 06 May 2024 07:08:08 GMT', 200],
  ])('If-Range with a %s -> %i', async (_name, ifRange, status) => {
    const reply = artifactReply(request({ range: 'bytes=0-0', 'if-range': ifRange }), file);
    expect(reply.status).toBe(status);
    expect((await bodyOf(reply)).length).toBe(status === 206 ? 1 : data.length);
  });

  it('a failed If-Range wins over a malformed Range (the whole body, no 416)', () => {
    expect(artifactReply(request({ range: 'bytes=x', 'if-range': '"feed"' }), file).status).toBe(200);
  });

  it('answers 412 when If-Match does not match the sha1', () => {
    const err = thrown(() => artifactReply(request({ 'if-match': '"0000"' }), file));
    expect(err.code).toBe('PRECONDITION_FAILED');
    expect(err.status).toBe(412);
  });

  it('accepts If-Match with the quoted or the bare sha1', () => {
    expect(artifactReply(request({ 'if-match': etag }), file).status).toBe(200);
    expect(artifactReply(request({ 'if-match': file.sha1 }), file).status).toBe(200);
  });

  it('answers 304 without a body when If-None-Match has the ETag', () => {
    expect(artifactReply(request({ 'if-none-match': etag }), file)).toEqual({ status: 304, headers: { ETag: etag, 'Last-Modified': lastModified } });
  });

  it('ignores Range on HEAD and with headOnly', () => {
    const head = artifactReply(request({ range: 'bytes=0-0' }, 'HEAD'), file);
    expect(head.status).toBe(200);
    expect(head.stream?.length).toBe(data.length);
    expect(artifactReply(request({ range: 'bytes=0-0' }), file, { headOnly: true }).status).toBe(200);
  });

  it('fails the body with ARTIFACT_BINARY_DELETED when the file vanished', async () => {
    const reply = artifactReply(request(), { ...file, path: join(dir, 'gone') });
    await expect(bodyOf(reply)).rejects.toMatchObject({ code: 'ARTIFACT_BINARY_DELETED' });
  });
});

describe('md5sumReply', () => {
  it('is "<md5>  <filename>" without a trailing newline, as a .MD5SUM attachment', () => {
    const reply = md5sumReply(file.md5, 'image.bin');
    expect(reply.status).toBe(200);
    expect(reply.body?.toString()).toBe(`${file.md5}  image.bin`);
    expect(reply.headers).toEqual({ 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'attachment;filename=image.bin.MD5SUM' });
  });
});

describe('contentDisposition', () => {
  it.each([
    ['image.bin', 'attachment;filename=image.bin'],
    ['fw-1.2_rc+3.tar.gz', 'attachment;filename=fw-1.2_rc+3.tar.gz'],
    ['my file.bin', 'attachment;filename="my file.bin"'],
    ['a;b=c.bin', 'attachment;filename="a;b=c.bin"'],
    ['quote"back\\slash', 'attachment;filename="quote\\"back\\\\slash"'],
    ['evil\r\nSet-Cookie: x=1', 'attachment;filename="evil__Set-Cookie: x=1"'],
    ['Grüße.bin', `attachment;filename="Gr__e.bin";filename*=UTF-8''Gr%C3%BC%C3%9Fe.bin`],
    ["it's (1).bin\u00e9", `attachment;filename="it's (1).bin_";filename*=UTF-8''it%27s%20%281%29.bin%C3%A9`],
    ['', 'attachment;filename=""'],
  ])('%j -> %s', (name, header) => {
    expect(contentDisposition(name)).toBe(header);
  });
});
