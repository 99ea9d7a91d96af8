/**
 * Runs in a piscina pool thread: reads a file once and feeds every chunk to md5, sha1 and sha256.
 * Imports nothing from the rest of src (a worker loads only this compiled file and node built-ins).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface HashJob {
  /** Absolute path of the file to hash. */
  readonly path: string;
}

export interface Digests {
  readonly md5: string;
  readonly sha1: string;
  readonly sha256: string;
  /** Bytes read, to check against the bytes written. */
  readonly bytes: number;
}

// Larger reads than the 64 KiB default: fewer round trips to the libuv pool for big artifacts.
const READ_CHUNK = 1024 * 1024; // 1 MiB

export default async function hash(job: HashJob): Promise<Digests> {
  const md5 = createHash('md5');
  const sha1 = createHash('sha1');
  const sha256 = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(job.path, { highWaterMark: READ_CHUNK }) as AsyncIterable<Buffer>) {
    md5.update(chunk);
    sha1.update(chunk);
    sha256.update(chunk);
    bytes += chunk.length;
  }
  return { md5: md5.digest('hex'), sha1: sha1.digest('hex'), sha256: sha256.digest('hex'), bytes };
}
