import { describe, expect, it } from 'vitest';
import { BURST } from '../../../src/ddi/index.js';
import { LOCAL_STORES } from '../../helpers/app.js';
import { GATEWAY, startDdiApp, type DdiApp } from './fixture.js';

/**
 * Issue 23 item 11: hawkBit's DoS filter never limits its whitelist (loopback and private IPv4), so
 * peregrine's poll limiter exempts `ddi.pollLimiter.exemptCidrs` (the same ranges by default). Each
 * case runs on the express lane (JSON) and on the generic path (CBOR, which the lane leaves to it).
 */
const PATHS = { lane: 'application/hal+json', generic: 'application/cbor' } as const;

async function statuses(app: DdiApp, cid: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await app.device(cid, headers).get()).status);
  return out;
}

const paced = [...Array<number>(BURST).fill(200), 429, 429];

describe.each(LOCAL_STORES)('poll limiter exemptions on the %s store', (kind) => {
  it.each(Object.entries(PATHS))('never paces a device polling from loopback by default (%s)', async (path, accept) => {
    const app = await startDdiApp(kind); // minPollingTime 00:00:30, default exemptCidrs
    expect(await statuses(app, `loopback-${path}`, { ...GATEWAY, accept }, BURST * 2)).toEqual(Array<number>(BURST * 2).fill(200));
    // the same device without the exemption is paced
    const strict = await startDdiApp(kind, { exemptCidrs: [] });
    expect(await statuses(strict, `loopback-${path}`, { ...GATEWAY, accept }, BURST + 2)).toEqual(paced);
  });

  it.each(Object.entries(PATHS))('judges the forwarded client address behind a trusted proxy (%s)', async (path, accept) => {
    const app = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], exemptCidrs: ['10.0.0.0/8', '192.0.2.7'] });
    const via = (client: string): Record<string, string> => ({ ...GATEWAY, accept, 'x-forwarded-for': `${client}, 127.0.0.1` });
    expect(await statuses(app, `private-${path}`, via('10.1.2.3'), BURST * 2)).toEqual(Array<number>(BURST * 2).fill(200));
    expect(await statuses(app, `listed-${path}`, via('192.0.2.7'), BURST * 2)).toEqual(Array<number>(BURST * 2).fill(200));
    expect(await statuses(app, `public-${path}`, via('203.0.113.9'), BURST + 2)).toEqual(paced);
    // the proxy itself (127.0.0.1) is not in this list: a device it does not name is paced by the peer address
    expect(await statuses(app, `proxy-${path}`, { ...GATEWAY, accept }, BURST + 2)).toEqual(paced);
  });
});
