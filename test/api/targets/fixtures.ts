import { expect } from 'vitest';
import type { App } from '../../helpers/app.js';
import type { TestResponse } from '../../helpers/server.js';

/** Small helpers shared by the target-side API tests. */

/** Creates targets through the API and returns their JSON. */
export async function createTargets(app: App, items: readonly Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const res = await app.mgmt.post('/rest/v1/targets', { json: items });
  expect(res.status, res.text).toBe(201);
  return res.json();
}

export async function createTag(app: App, name: string, extra: Record<string, unknown> = {}): Promise<{ id: number; name: string }> {
  const res = await app.mgmt.post('/rest/v1/targettags', { json: [{ name, ...extra }] });
  expect(res.status, res.text).toBe(201);
  return res.json()[0];
}

/** Asserts a hawkBit error reply: status, errorCode, and that the message mentions `mentions`. */
export function expectError(res: TestResponse, status: number, errorCode: string, mentions?: string): void {
  expect(res.status, res.text).toBe(status);
  const body = res.json();
  expect(body.errorCode).toBe(errorCode);
  if (mentions !== undefined) expect(body.message).toContain(mentions);
}

export const ERR = {
  body: 'hawkbit.server.error.rest.body.notReadable',
  exists: 'hawkbit.server.error.repo.entityAlreadyExists',
  notFound: 'hawkbit.server.error.repo.entityNotFound',
  param: 'hawkbit.server.error.rest.param.invalid',
  rsqlField: 'hawkbit.server.error.rest.param.rsqlInvalidField',
  rsqlSyntax: 'hawkbit.server.error.rest.param.rsqlParamSyntax',
  sortField: 'hawkbit.server.error.rest.param.invalidField',
  sortDirection: 'hawkbit.server.error.rest.param.invalidDirection',
  sortSyntax: 'hawkbit.server.error.rest.param.sortParamSyntax',
  quota: 'hawkbit.server.error.quota.tooManyEntries',
  permission: 'hawkbit.server.error.insufficientPermission',
  address: 'hawkbit.server.error.repo.invalidTargetAddress',
} as const;

/** A unique prefix per test, so lists can be filtered to what one test created. */
let n = 0;
export function uid(prefix = 'dev'): string {
  return `${prefix}-${Date.now().toString(36)}-${++n}`;
}
