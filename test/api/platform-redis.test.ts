import { describe, expect, it, vi } from 'vitest';
import { startRedis } from '../helpers/redis.js';
import { http, startTestServer } from '../helpers/server.js';

/** The readiness answer, once it has this status. */
const readyWith = (api: ReturnType<typeof http>, status: number, timeout: number) => vi.waitFor(async () => {
  const res = await api.get('/ready');
  expect(res.status, res.text).toBe(status);
  return res;
}, { timeout, interval: 100 });

describe('readiness on the redis store', () => {
  it('answers 503 while Redis is down, stays alive, and recovers when Redis returns', async () => {
    const redis = await startRedis();
    try {
      const server = await startTestServer({}, { redisUrl: redis.url });
      const api = http(server.url);
      expect((await api.get('/ready')).status).toBe(200);

      await redis.stop();
      const down = await readyWith(api, 503, 10_000);
      expect(down.json()).toMatchObject({ errorCode: 'peregrine.server.error.storeUnavailable', exceptionClass: 'io.peregrine.StoreUnavailableException' });
      expect((await api.get('/health')).json()).toEqual({ status: 'UP' });
      expect((await api.get('/metrics')).text).toMatch(/^store_errors_total [1-9]/m);

      const again = await startRedis({ port: redis.port, dir: redis.dir });
      try {
        const up = await readyWith(api, 200, 15_000);
        expect(up.json()).toEqual({ status: 'UP' });
      } finally {
        await server.close();
        await again.stop();
      }
    } finally {
      await redis.stop();
    }
  }, 40_000);
});
