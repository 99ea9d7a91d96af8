import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { dmfMetrics } from '../../../src/dmf/metrics.js';

describe('DMF message counters', () => {
  it('count by topic, else type; anything a sender makes up counts as other, so the labels stay bounded', async () => {
    const registry = new Registry();
    const m = dmfMetrics(registry);
    m.message('in', { type: 'EVENT', topic: 'UPDATE_ACTION_STATUS' });
    m.message('in', { type: 'EVENT', topic: 'UPDATE_ACTION_STATUS' });
    m.message('in', { type: 'PING' });
    m.message('in', { type: 'EVENT', topic: 'made-up-1' });
    m.message('in', { type: 'made-up-2' });
    m.message('in', {});
    m.message('out', { type: 'EVENT', topic: 'DOWNLOAD_AND_INSTALL' });
    const text = await registry.metrics();
    const seen = Object.fromEntries([...text.matchAll(/^dmf_messages_total\{(.*)\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    expect(seen).toEqual({
      'direction="in",kind="UPDATE_ACTION_STATUS"': 2, 'direction="in",kind="PING"': 1, 'direction="in",kind="EVENT"': 1,
      'direction="in",kind="other"': 2, 'direction="out",kind="DOWNLOAD_AND_INSTALL"': 1,
    });
    expect(text).not.toContain('made-up');
  });
});
