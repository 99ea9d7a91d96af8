/**
 * Helpers for the repository API tests: create types, modules and sets through the real API, and
 * build multipart bodies by hand (so tests control part order and framing).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../helpers/app.js';

let counter = 0;
/** A name unique within the test run. */
export function unique(prefix: string): string {
  return `${prefix}-${process.pid}-${++counter}-${randomBytes(2).toString('hex')}`;
}

export const ROOT = '/rest/v1';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function created(app: App, path: string, body: unknown): Promise<Json> {
  const res = await app.mgmt.post(path, { json: body });
  expect(res.status, res.text).toBe(201);
  return res.json()[0];
}

export function smType(app: App, over: Record<string, unknown> = {}): Promise<Json> {
  const key = unique('smt');
  return created(app, `${ROOT}/softwaremoduletypes`, [{ key, name: key, maxAssignments: 1, ...over }]);
}

export function module(app: App, type: string, over: Record<string, unknown> = {}): Promise<Json> {
  return created(app, `${ROOT}/softwaremodules`, [{ name: unique('sm'), version: '1.0.0', type, ...over }]);
}

export function dsType(app: App, mandatory: number[], optional: number[] = [], over: Record<string, unknown> = {}): Promise<Json> {
  const key = unique('dst');
  return created(app, `${ROOT}/distributionsettypes`, [{
    key, name: key, mandatorymodules: mandatory.map((id) => ({ id })), optionalmodules: optional.map((id) => ({ id })), ...over,
  }]);
}

export function ds(app: App, type: string, modules: number[], over: Record<string, unknown> = {}): Promise<Json> {
  return created(app, `${ROOT}/distributionsets`, [{ name: unique('ds'), version: '1.0', type, modules: modules.map((id) => ({ id })), ...over }]);
}

/** An OS module type, a module of it, a set type requiring it and a set holding the module. */
export async function completeSet(app: App): Promise<{ smType: Json; module: Json; dsType: Json; ds: Json }> {
  const t = await smType(app);
  const m = await module(app, t.key);
  const dt = await dsType(app, [t.id]);
  const d = await ds(app, dt.key, [m.id]);
  return { smType: t, module: m, dsType: dt, ds: d };
}

export interface Part {
  readonly name: string;
  readonly filename?: string;
  readonly content: Buffer | string;
}

export function multipart(parts: readonly Part[], boundary = `----peregrine${randomBytes(8).toString('hex')}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = p.filename === undefined ? `form-data; name="${p.name}"` : `form-data; name="${p.name}"; filename="${p.filename}"`;
    const type = p.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(p.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function upload(app: App, moduleId: number, parts: readonly Part[], query = '', auth?: readonly [string, string]) {
  const { body, contentType } = multipart(parts);
  return app.mgmt.post(`${ROOT}/softwaremodules/${moduleId}/artifacts${query}`, { body, headers: { 'content-type': contentType }, ...(auth ? { auth } : {}) });
}
