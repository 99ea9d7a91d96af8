import { describe, expect, it } from 'vitest';
import { feedbackBody } from '../../../src/ddi/bodies.js';
import { quickFeedback } from '../../../src/ddi/quick-feedback.js';
import { validate } from '../../../src/http/json.js';

const st = (status: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  ({ ...top, status: { execution: 'proceeding', result: { finished: 'none' }, ...status } });

/** Bodies the hand check takes: what devices send. */
const TAKEN: unknown[] = [
  st({}),
  st({}, { timestamp: 1700000000000 }),
  st({}, { timestamp: 0, id: '7', time: '20240101T000000' }),
  st({}, { timestamp: null }),
  st({ code: 200, details: ['Downloading', 'ok'] }),
  st({ code: -2_147_483_648, details: [] }),
  st({ code: 2_147_483_647 }),
  st({ code: null, details: null }),
  st({ details: ['x'], extra: { deep: [1, 2] } }),
  st({ result: { finished: 'none', progress: { cnt: 1, of: 0 } } }),
  st({ result: { finished: 'none', progress: { of: 5, cnt: 2, other: 1 } } }),
  st({ result: { finished: 'none', progress: {} } }),
  st({ result: { finished: 'none', progress: { cnt: null, of: null } } }),
  st({ result: { finished: 'none', progress: null } }),
  st({ result: { progress: { cnt: 3 }, finished: 'success' }, details: ['a'], code: 0, execution: 'closed' }),
  { status: { result: { finished: 'failure' }, execution: 'closed' }, timestamp: 5 },
  ...['proceeding', 'scheduled', 'resumed', 'download', 'downloaded', 'canceled', 'rejected', 'closed'].flatMap((execution) =>
    ['none', 'success', 'failure'].map((finished) => ({ status: { execution, result: { finished } } }))),
];

/** Bodies it declines: hawkBit's lenient coercions (the schema takes them) and errors (the schema answers them). */
const DECLINED: unknown[] = [
  st({}, { timestamp: '1700000000000' }),
  st({}, { timestamp: 1.5 }),
  st({}, { timestamp: -1 }),
  st({}, { timestamp: Number.MAX_SAFE_INTEGER + 2 }),
  st({}, { timestamp: 'soon' }),
  st({}, { timestamp: undefined }),
  st({ code: '200' }),
  st({ code: 2.9 }),
  st({ code: 2_147_483_648 }),
  st({ code: true }),
  st({ code: undefined }),
  st({ details: 'one' }),
  st({ details: ['a', 1, true, null] }),
  st({ details: [{}] }),
  st({ details: {} }),
  st({ result: { finished: 'none', progress: { cnt: '1', of: 2 } } }),
  st({ result: { finished: 'none', progress: { cnt: 1.5 } } }),
  st({ result: { finished: 'none', progress: [] } }),
  st({ result: { finished: 'none', progress: 3 } }),
  st({ result: { finished: 'done' } }),
  st({ result: { finished: 'none', progress: { cnt: undefined } } }),
  st({ result: null }),
  st({ result: [] }),
  st({ result: undefined }),
  st({ execution: 'done' }),
  st({ execution: null }),
  st({ execution: 'Proceeding' }),
  { status: null },
  { status: [] },
  { status: 'proceeding' },
  {},
  [],
  null,
  'text',
  42,
];

/** What the schema answers: the body, or the error it throws. */
function bySchema(body: unknown): unknown {
  try {
    return validate(body, feedbackBody);
  } catch (err) {
    return err;
  }
}

describe('the hand-checked feedback body (quickFeedback)', () => {
  it.each(TAKEN.map((b) => [JSON.stringify(b), b]))('takes %s as the schema reads it, key order included', (_, body) => {
    const quick = quickFeedback(body);
    expect(quick).toBeDefined();
    expect(quick).toStrictEqual(bySchema(body));
    expect(JSON.stringify(quick)).toBe(JSON.stringify(bySchema(body)));
  });

  it.each(DECLINED.map((b) => [JSON.stringify(b) ?? String(b), b]))('leaves %s to the schema', (_, body) => {
    expect(quickFeedback(body)).toBeUndefined();
  });

  it('declines the lenient spellings the schema takes, and every body the schema refuses', () => {
    const lenient = DECLINED.filter((b) => !(bySchema(b) instanceof Error));
    expect(lenient.length).toBeGreaterThanOrEqual(8);
    for (const body of TAKEN) expect(bySchema(body)).not.toBeInstanceOf(Error);
  });
});
