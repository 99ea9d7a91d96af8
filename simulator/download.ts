/**
 * Artifact download as a device does it: stream the bytes through sha1 and count them, either in one
 * GET or as consecutive Range requests, then compare with the size and hash the deploymentBase promised.
 */
import { createHash } from 'node:crypto';
import type { SimHttp } from './http.js';

export interface ArtifactRef {
  readonly filename: string;
  readonly size: number;
  readonly hashes: { readonly sha1: string; readonly md5?: string; readonly sha256?: string };
  readonly href: string;
}

export type DownloadResult =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly bytes: number; readonly status?: number; readonly reason: string };

export async function downloadArtifact(
  http: SimHttp, auth: Record<string, string>, a: ArtifactRef, rangeChunkBytes = 0,
): Promise<DownloadResult> {
  const sha1 = createHash('sha1');
  let bytes = 0;
  const ranged = rangeChunkBytes > 0 && a.size > rangeChunkBytes;
  const parts = ranged ? Math.ceil(a.size / rangeChunkBytes) : 1;
  for (let i = 0; i < parts; i++) {
    const headers = { ...auth };
    const expected = ranged ? 206 : 200;
    if (ranged) headers['range'] = `bytes=${i * rangeChunkBytes}-${Math.min(a.size, (i + 1) * rangeChunkBytes) - 1}`;
    let failure: DownloadResult | undefined;
    await http.send({ method: 'GET', url: a.href, headers }, async (res) => {
      if (res.status !== expected) { failure = { ok: false, bytes, status: res.status, reason: `download answered ${res.status}` }; return; }
      for await (const chunk of res.body) { sha1.update(chunk as Buffer); bytes += (chunk as Buffer).length; }
    });
    if (failure) return failure;
  }
  if (bytes !== a.size) return { ok: false, bytes, reason: `size ${bytes} != ${a.size}` };
  const digest = sha1.digest('hex');
  if (digest !== a.hashes.sha1.toLowerCase()) return { ok: false, bytes, reason: `sha1 ${digest} != ${a.hashes.sha1}` };
  return { ok: true, bytes };
}
