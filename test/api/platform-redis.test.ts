import { describe, expect, it } from 'vitest';
import { startRedis } from '../helpers/redis.js';
import { http, startTestServer } from '../helpers/server.js';

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('readiness on the redis store', () => {
  it('answers 503 while Redis is down, stays alive, and recovers when Redis returns', async () => {
    const redis = await startRedis();
    try {
      const server = await startTestServer({}, { redisUrl: redis.url });
      const api = http(server.url);
      expect((await api.get('/ready')).status).toBe(200);

      await redis.stop();
      const down = await eventually(() => api.get('/ready'), (r) => r.status === 503, 10_000);
      expect(down.status).toBe(503);
      expect(down.json()).toMatchObject({ errorCode: 'peregrine.server.error.storeUnavailable', exceptionClass: 'io.peregrine.StoreUnavailableException' });
      expect((await api.get('/health')).json()).toEqual({ status: 'UP' });
      expect((await api.get('/metrics')).text).toMatch(/^store_errors_total [1-9]/m);

      const again = await startRedis({ port: redis.port, dir: redis.dir });
      try {
        const up = await eventually(() => api.get('/ready'), (r) => r.status === 200, 15_000);
        expect(up.status).toBe(200);
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
