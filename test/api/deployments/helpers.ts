import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { created } from '../../../src/domain/audit.js';
import { ACTION, type ActionRecord } from '../../../src/domain/action.js';
import { TARGET, type TargetRecord } from '../../../src/domain/target.js';
import { TARGET_FILTER, TARGET_TYPE, type TargetFilterRecord, type TargetTypeRecord } from '../../../src/domain/targeting.js';
import type { TestResponse } from '../../helpers/server.js';
import type { DeployApp } from './fixture.js';

/** Small helpers shared by the deployment API tests. */
let n = 0;
export const cid = (prefix = 'dev'): string => `${prefix}-${randomBytes(3).toString('hex')}-${++n}`;

export function expectError(res: TestResponse, status: number, errorCode: string): void {
  expect({ status: res.status, errorCode: res.status === status ? res.json<{ errorCode: string }>().errorCode : res.text })
    .toEqual({ status, errorCode });
}

export async function assignDs(app: DeployApp, controllerId: string, body: unknown, query = ''): Promise<TestResponse> {
  return app.mgmt.post(`/rest/v1/targets/${encodeURIComponent(controllerId)}/assignedDS${query}`, { json: body });
}

/** Assigns and returns the new action's id (expects exactly one assignment). */
export async function assignOne(app: DeployApp, controllerId: string, body: Record<string, unknown>, query = ''): Promise<number> {
  const res = await assignDs(app, controllerId, body, query);
  expect(res.status, res.text).toBe(200);
  const json = res.json<{ assigned: number; assignedActions: { id: number }[] }>();
  expect(json.assigned).toBe(1);
  return (json.assignedActions[0] as { id: number }).id;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getAction(app: DeployApp, controllerId: string, id: number): Promise<Record<string, any>> {
  const res = await app.mgmt.get(`/rest/v1/targets/${encodeURIComponent(controllerId)}/actions/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json();
}

export async function storedTarget(app: DeployApp, id: number): Promise<TargetRecord> {
  const t = await app.store.get<TargetRecord>(app.tenant, TARGET, id);
  if (t === undefined) throw new Error(`target ${id} missing`);
  return t.value;
}

export async function storedAction(app: DeployApp, id: number): Promise<ActionRecord | undefined> {
  return (await app.store.get<ActionRecord>(app.tenant, ACTION, id))?.value;
}

export async function statusTypes(app: DeployApp, controllerId: string, id: number): Promise<{ type: string; messages: string[] }[]> {
  const res = await app.mgmt.get(`/rest/v1/targets/${encodeURIComponent(controllerId)}/actions/${id}/status?sort=id:ASC`);
  expect(res.status, res.text).toBe(200);
  return res.json<{ content: { type: string; messages: string[] }[] }>().content;
}

/** Replaces fields of a stored record (seeding states the endpoints under test do not create). */
export async function patchRecord<T>(app: DeployApp, kind: string, id: number, change: Partial<T>): Promise<void> {
  const cur = await app.store.get<T>(app.tenant, kind, id);
  if (cur === undefined) throw new Error(`${kind} ${id} missing`);
  const result = await app.store.commit(app.tenant, {
    writes: [{ kind, id, expect: cur.version, before: cur.value, after: { ...cur.value, ...change } }],
  });
  if (!result.ok) throw new Error(`patching ${kind} ${id} failed`);
}

export async function seedTargetType(app: DeployApp, compatibleDsTypes: number[]): Promise<TargetTypeRecord> {
  const id = await app.store.nextIds(app.tenant, TARGET_TYPE, 1);
  const record: TargetTypeRecord = {
    id, key: `tt-${id}-${randomBytes(2).toString('hex')}`, name: `type ${id} ${randomBytes(2).toString('hex')}`, description: null, colour: null,
    compatibleDsTypes, deleted: false, ...created('seed', 1_700_000_000_000),
  };
  const result = await app.store.commit(app.tenant, { writes: [{ kind: TARGET_TYPE, id, expect: 0, after: record }] });
  if (!result.ok) throw new Error('seeding target type failed');
  return record;
}

export async function seedFilter(app: DeployApp, f: Partial<TargetFilterRecord> & { query: string }): Promise<TargetFilterRecord> {
  const id = await app.store.nextIds(app.tenant, TARGET_FILTER, 1);
  const record: TargetFilterRecord = {
    id, name: `filter-${id}-${randomBytes(2).toString('hex')}`, autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null,
    confirmationRequired: null, autoAssignInitiatedBy: null, ...created('creator', 1_700_000_000_000), ...f,
  };
  const result = await app.store.commit(app.tenant, { writes: [{ kind: TARGET_FILTER, id, expect: 0, after: record }] });
  if (!result.ok) throw new Error('seeding target filter failed');
  return record;
}
