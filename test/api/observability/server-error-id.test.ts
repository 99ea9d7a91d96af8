/**
 * Every 5xx answer carries a request id in its error body (`requestId`, beside errorCode and message),
 * and the server's log line of that failure carries the same id: a thrown bug on the memory store
 * (500), and Redis gone on the redis store (503).
 */
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/observability/logger.js';
import { startRedis } from '../../helpers/redis.js';
import { ADMIN, http, startTestServer } from '../../helpers/server.js';

type Line = Record<string, unknown>;

function capture(): { lines: Line[]; logger: ReturnType<typeof createLogger> } {
  const lines: Line[] = [];
  return { lines, logger: createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Line) }) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the request id of a 5xx', () => {
  it('memory store: a handler that throws answers 500 with an id its error log line carries; a 4xx has none', async () => {
    const { lines, logger } = capture();
    const server = await startTestServer({}, {
      logger, routes: [{ method: 'GET', path: '/probe/bug', handler: () => { throw new TypeError('a bug'); } }],
    });
    const api = http(server.url);
    const res = await api.get('/probe/bug');
    expect(res.status).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ errorCode: 'hawkbit.server.error.repo.genericError', requestId: expect.stringMatching(UUID) });
    const logged = lines.filter((l) => l['requestId'] === body.requestId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, method: 'GET', path: '/probe/bug', err: { message: 'a bug' } });
    const again = await api.get('/probe/bug');
    expect(again.json().requestId).not.toBe(body.requestId);

    const missing = await api.get('/rest/v1/targets/nobody', { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.json()).not.toHaveProperty('requestId');
  });

  it('redis store: Redis down answers 503 with an id its warn line carries', async () => {
    const redis = await startRedis();
    try {
      const { lines, logger } = capture();
      const server = await startTestServer({}, { redisUrl: redis.url, logger });
      const api = http(server.url);
      expect((await api.get('/rest/v1/targets', { auth: ADMIN })).status).toBe(200);
      await redis.stop();
      // the client may still be noticing the lost connection: ask until the store error is the answer
      const res = await vi.waitFor(async () => {
        const answer = await api.get('/rest/v1/targets', { auth: ADMIN });
        expect(answer.status, answer.text).toBe(503);
        return answer;
      }, { timeout: 10_000, interval: 100 });
      const body = res.json();
      expect(body).toMatchObject({ errorCode: 'peregrine.server.error.storeUnavailable', requestId: expect.stringMatching(UUID) });
      const logged = lines.filter((l) => l['requestId'] === body.requestId);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 40, method: 'GET', path: '/rest/v1/targets', msg: 'store unavailable' });
      await server.close();
    } finally {
      await redis.stop();
    }
  }, 40_000);
});
