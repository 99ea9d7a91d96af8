import { readFileSync } from 'node:fs';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REDIS_SETTINGS } from '../../src/store/redis/hash-encoding.js';
import { openRedisStore, type RedisTarget } from '../../src/store/redis/index.js';
import { recordKey, tenantTag } from '../../src/store/redis/keys.js';
import { startRedis, uniqueTenant, type RedisServer } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, NOTE } from './contract-schema.js';

const SETTING = 'hash-max-listpack-value';
/** A record's JSON of about the size of a target's (488 bytes in the capacity census). */
const RECORD = { text: 'x'.repeat(450) };

/** Opens the store on `target`, writes one record, closes; returns the warnings and the record's key. */
async function openAndWrite(target: RedisTarget): Promise<{ warnings: string[]; key: string }> {
  const warnings: string[] = [];
  const store = await openRedisStore(target, CONTRACT_SCHEMA, { onWarning: (m) => warnings.push(m) });
  const tenant = uniqueTenant('enc');
  try {
    const result = await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: RECORD }] });
    expect(result.ok).toBe(true);
  } finally {
    await store.close();
  }
  return { warnings, key: recordKey(tenantTag(tenant), NOTE, 1) };
}

async function withClient<T>(url: string, fn: (c: ReturnType<typeof createClient>) => Promise<T>): Promise<T> {
  const c = createClient({ url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

const encodingOf = (url: string, key: string): Promise<unknown> => withClient(url, (c) => c.sendCommand(['OBJECT', 'ENCODING', key]));

describe('redis hash encoding of records', () => {
  let own: RedisServer;
  beforeAll(async () => {
    own = await startRedis();
  });
  afterAll(async () => {
    await own.stop();
  });

  it('stores records as listpacks on the recommended settings, which the shipped redis configuration holds', async () => {
    const conf = Object.fromEntries(readFileSync(new URL('../../deploy/redis-peregrine.conf', import.meta.url), 'utf8')
      .split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).map((l) => l.trim().split(/\s+/) as [string, string]));
    expect(conf).toEqual(REDIS_SETTINGS);
    const { warnings, key } = await openAndWrite(inject('redisUrl'));
    expect(warnings).toEqual([]);
    expect(await encodingOf(inject('redisUrl'), key)).toBe('listpack');
  });

  it(`warns once, naming ${SETTING} and its cost, when Redis keeps it lower`, async () => {
    await withClient(own.url, (c) => c.configSet(SETTING, '64'));
    try {
      const { warnings, key } = await openAndWrite(own.url);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/hash-max-listpack-value is 64, below 1024/);
      expect(warnings[0]).toMatch(/bytes more per device/);
      expect(await encodingOf(own.url, key)).toBe('hashtable');
    } finally {
      await withClient(own.url, (c) => c.configSet(SETTING, REDIS_SETTINGS[SETTING]!));
    }
  });

  it('says nothing where CONFIG is refused, and the store works', async () => {
    await withClient(own.url, async (c) => {
      await c.configSet(SETTING, '64');
      await c.sendCommand(['ACL', 'SETUSER', 'noconfig', 'on', '>secret', '~*', '&*', '+@all', '-config']);
    });
    try {
      const { warnings } = await openAndWrite(own.url.replace('redis://', 'redis://noconfig:secret@'));
      expect(warnings).toEqual([]);
    } finally {
      await withClient(own.url, (c) => c.configSet(SETTING, REDIS_SETTINGS[SETTING]!));
    }
  });

  it('checks every master of a cluster', async () => {
    const urls = inject('redisClusterUrls');
    const before = await openAndWrite(urls);
    expect(before.warnings).toEqual([]);
    // one master lower is enough: the tenants it serves pay the cost
    await withClient(urls[1]!, (c) => c.configSet(SETTING, '128'));
    try {
      const { warnings } = await openAndWrite(urls);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/is 128, below 1024/);
    } finally {
      await withClient(urls[1]!, (c) => c.configSet(SETTING, REDIS_SETTINGS[SETTING]!));
    }
  });
});
