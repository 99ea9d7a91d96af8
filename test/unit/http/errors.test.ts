import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { AppError, notFound } from '../../../src/domain/errors.js';
import { toErrorReply } from '../../../src/http/errors.js';
import { StoreUnavailableError } from '../../../src/store/port.js';

const logger = pino({ level: 'silent' });

describe('error replies', () => {
  it('maps an AppError to its status, catalogue entry and headers', () => {
    expect(toErrorReply(notFound('Target', 'dev1'), logger)).toEqual({
      status: 404,
      json: { exceptionClass: 'org.eclipse.hawkbit.repository.exception.EntityNotFoundException', errorCode: 'hawkbit.server.error.repo.entityNotFound', message: 'Target with given identifier {dev1} does not exist.' },
    });
    const withHeaders = toErrorReply(new AppError('UNAUTHORIZED', 'no', { headers: { 'WWW-Authenticate': 'Basic' } }), logger);
    expect(withHeaders).toMatchObject({ status: 401, headers: { 'WWW-Authenticate': 'Basic' } });
  });

  it('gives every 5xx a fresh request id, logged with it; a 4xx has none', () => {
    const lines: { requestId?: string; path?: string }[] = [];
    const capture = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const first = toErrorReply(new StoreUnavailableError('down'), capture, { method: 'GET', path: '/x' });
    const second = toErrorReply(new TypeError('x'), capture);
    const ids = [first, second].map((r) => (r.json as { requestId: string }).requestId);
    expect(new Set(ids).size).toBe(2);
    expect(lines.map((l) => l.requestId)).toEqual(ids);
    expect(lines[0]).toMatchObject({ path: '/x' });
    expect(toErrorReply(notFound('Target', 'dev1'), capture).json).not.toHaveProperty('requestId');
    expect(lines).toHaveLength(2);
  });

  it('maps StoreUnavailableError to 503 without leaking its detail', () => {
    const reply = toErrorReply(new StoreUnavailableError('ECONNREFUSED 10.0.0.5:6379'), logger);
    expect(reply.status).toBe(503);
    expect(reply.json).toMatchObject({ errorCode: 'peregrine.server.error.storeUnavailable' });
    expect(JSON.stringify(reply.json)).not.toContain('10.0.0.5');
  });

  it('maps anything else to a generic 500', () => {
    for (const thrown of [new TypeError('x is undefined'), 'a string', null, { weird: true }]) {
      const reply = toErrorReply(thrown, logger);
      expect(reply.status).toBe(500);
      expect(reply.json).toEqual({
        exceptionClass: 'org.eclipse.hawkbit.exception.GenericSpServerException', errorCode: 'hawkbit.server.error.repo.genericError',
        message: 'An unexpected error occurred on the server.', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
    }
  });
});
