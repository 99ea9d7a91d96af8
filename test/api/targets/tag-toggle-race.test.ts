import { describe, expect, it } from 'vitest';
import { startAppOn, storeOptions, tenantFor, type App } from '../../helpers/app.js';
import { createTag, createTargets } from './fixtures.js';

/**
 * Two server instances on one Redis (and on the Redis Cluster) answer toggleTagAssignment at the
 * same moment for the same targets (issue 7 item 20): each answer and the tags left behind must be
 * those of one of the two serial orders. The toggle decides whether to tag or untag from the
 * targets as its own commit reads them, so the second of two racing toggles sees the first.
 */
const TARGETS = 30;
const ROUNDS = 12;

interface Toggled {
  readonly assigned: number;
  readonly unassigned: number;
}

/** What `toggleTagAssignment` over all `n` members does to `tagged` of them: [its answer, tags after]. */
function serialToggle(tagged: number, n = TARGETS): [Toggled, number] {
  return tagged === n ? [{ assigned: 0, unassigned: n }, 0] : [{ assigned: n - tagged, unassigned: 0 }, n];
}

/** The answers of the two racing toggles, as a serial order would give them: sorted, and the tags after. */
function serialPair(tagged: number, n = TARGETS): [Toggled[], number] {
  const [first, afterFirst] = serialToggle(tagged, n);
  const [second, afterSecond] = serialToggle(afterFirst, n);
  return [[first, second].sort((x, y) => x.assigned - y.assigned), afterSecond];
}

describe.each(['redis', 'cluster'] as const)('toggleTagAssignment from two instances on %s', (kind) => {
  it(`matches a serial order in each of ${ROUNDS} rounds of two concurrent toggles`, async () => {
    const tenant = tenantFor(kind, 'TOGGLE');
    const a: App = await startAppOn(storeOptions(kind), tenant);
    const b: App = await startAppOn(storeOptions(kind), tenant);
    const ids = Array.from({ length: TARGETS }, (_, i) => `tr-${String(i).padStart(2, '0')}`);
    await createTargets(a, ids.map((controllerId) => ({ controllerId })));
    const tag = await createTag(a, 'racing');
    const path = `/rest/v1/targettags/${tag.id}/assigned`;
    const taggedNow = async (): Promise<number> => (await b.mgmt.get(`${path}?limit=500`)).json().total;

    for (let round = 0; round < ROUNDS; round++) {
      // start each round from another state: none, some, or all of the targets tagged
      const want = [0, 7, TARGETS, 29][round % 4] as number;
      await a.mgmt.delete(path, { json: ids });
      if (want > 0) expect((await a.mgmt.post(path, { json: ids.slice(0, want) })).status).toBe(204);
      expect(await taggedNow()).toBe(want);

      const body = { json: ids.map((controllerId) => ({ controllerId })) };
      const answers = await Promise.all([a, b].map(async (app) => {
        const res = await app.mgmt.post(`${path}/toggleTagAssignment`, body);
        expect(res.status, res.text).toBe(200);
        const json = res.json();
        return { assigned: json.assignedTargets.length, unassigned: json.unassignedTargets.length };
      }));

      const [expected, after] = serialPair(want);
      expect([...answers].sort((x, y) => x.assigned - y.assigned), `round ${round} from ${want} tagged`).toEqual(expected);
      expect(await taggedNow(), `round ${round}: tags left`).toBe(after);
    }
  });

  it('does the same for distribution set tags (plain records)', async () => {
    const tenant = tenantFor(kind, 'DSTOGGLE');
    const a: App = await startAppOn(storeOptions(kind), tenant);
    const b: App = await startAppOn(storeOptions(kind), tenant);
    const sets = 10;
    const created = await a.mgmt.post('/rest/v1/distributionsets', {
      json: Array.from({ length: sets }, (_, i) => ({ name: `race-${i}`, version: '1', type: 'os' })),
    });
    expect(created.status, created.text).toBe(201);
    const ids: number[] = created.json().map((d: { id: number }) => d.id);
    const tag = (await a.mgmt.post('/rest/v1/distributionsettags', { json: [{ name: 'racing' }] })).json()[0];
    const path = `/rest/v1/distributionsettags/${tag.id}/assigned`;
    for (let round = 0; round < 8; round++) {
      const want = [0, 3, sets, 9][round % 4] as number;
      await a.mgmt.delete(path, { json: ids });
      if (want > 0) await a.mgmt.post(path, { json: ids.slice(0, want) });
      const answers = await Promise.all([a, b].map(async (app) => {
        const res = await app.mgmt.post(`${path}/toggleTagAssignment`, { json: ids.map((id) => ({ id })) });
        expect(res.status, res.text).toBe(200);
        return { assigned: res.json().assignedDistributionSets.length, unassigned: res.json().unassignedDistributionSets.length };
      }));
      const [expected, after] = serialPair(want, sets);
      expect([...answers].sort((x, y) => x.assigned - y.assigned), `round ${round} from ${want} tagged`).toEqual(expected);
      expect((await b.mgmt.get(path)).json().total, `round ${round}: tags left`).toBe(after);
    }
  });
});
