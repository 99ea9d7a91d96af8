/**
 * Artifact download as a device does it: stream the bytes through sha1, either in one GET (started
 * over after a lost connection) or as Range requests of `pieceBytes` that resume at the first byte not
 * yet received, then compare size and hash with what the deploymentBase promised.
 */
import { createHash } from 'node:crypto';
import type { Faults, SimHttp } from './http.js';
import type { Stats } from './stats.js';

export interface ArtifactRef {
  readonly filename: string;
  readonly size: number;
  readonly hashes: { readonly sha1: string };
  readonly href: string;
}

/** ok; or a failure the device reports (`retry: false`) or retries on a later poll (`retry: true`). */
export type DownloadResult = { readonly ok: true } | { readonly ok: false; readonly retry: boolean; readonly reason: string };

export interface DownloadOptions {
  readonly http: SimHttp;
  readonly stats: Stats;
  readonly headers: Record<string, string>;
  readonly faults: Faults;
  readonly mode: 'whole' | 'range';
  readonly pieceBytes: number;
}

const MAX_RESTARTS = 5;

export async function downloadArtifact(o: DownloadOptions, a: ArtifactRef): Promise<DownloadResult> {
  let sha1 = createHash('sha1');
  let offset = 0;
  let restarts = 0;
  while (offset < a.size || (a.size === 0 && restarts === 0)) {
    const ranged = o.mode === 'range';
    const end = ranged ? Math.min(a.size, offset + o.pieceBytes) - 1 : a.size - 1;
    const headers = ranged ? { ...o.headers, range: `bytes=${offset}-${end}` } : o.headers;
    const expected = ranged ? 206 : 200;
    let failure: DownloadResult | undefined;
    let cut = false;
    try {
      const spec = { kind: 'download' as const, method: 'GET' as const, url: a.href, headers, faults: o.faults, dropInside: true };
      await o.http.send(spec, async (res, dropped) => {
        if (res.status !== expected) {
          // 5xx/429 and lost connections are worth another try later; anything else is the update's failure
          const retry = res.status >= 500 || res.status === 429;
          failure = { ok: false, retry, reason: `download of ${a.filename} answered ${res.status}` };
          return;
        }
        // an injected drop cuts the connection half-way through the answer: the device keeps what arrived
        const limit = dropped ? Math.floor((end - offset + 1) / 2) : Number.POSITIVE_INFINITY;
        let got = 0;
        for await (const chunk of res.body) {
          let buf = chunk as Buffer;
          if (got + buf.length > limit) { buf = buf.subarray(0, limit - got); cut = true; }
          sha1.update(buf);
          got += buf.length;
          offset += buf.length;
          o.stats.downloads.bytes += buf.length;
          if (cut) { res.body.destroy(); break; }
        }
      });
    } catch {
      cut = true; // the connection failed before or during the answer
    }
    if (failure) return failure;
    if (a.size === 0) break;
    if (cut) {
      if (++restarts > MAX_RESTARTS) {
        return { ok: false, retry: true, reason: `download of ${a.filename} lost its connection ${restarts} times` };
      }
      o.stats.downloads.resumes++;
      if (!ranged) { sha1 = createHash('sha1'); offset = 0; } // a whole download starts over
      continue;
    }
    if (!ranged) break;
  }
  const digest = sha1.digest('hex');
  if (offset !== a.size || digest !== a.hashes.sha1.toLowerCase()) {
    o.stats.downloads.verifyFailures++;
    return { ok: false, retry: false, reason: offset !== a.size ? `size ${offset} != ${a.size}` : `sha1 ${digest} != ${a.hashes.sha1}` };
  }
  return { ok: true };
}
