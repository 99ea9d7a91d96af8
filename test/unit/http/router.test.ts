import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/http/router.js';
import type { Route } from '../../../src/http/types.js';

const ok = () => ({ status: 200 });
function route(method: Route['method'], path: string): Route {
  return { method, path, handler: ok };
}

function routerOf(...routes: Route[]): Router {
  const r = new Router();
  for (const x of routes) r.add(x);
  return r;
}

describe('router', () => {
  const r = routerOf(
    route('GET', '/rest/v1/targets'),
    route('POST', '/rest/v1/targets'),
    route('GET', '/rest/v1/targets/:targetId'),
    route('PUT', '/rest/v1/targets/:targetId'),
    route('GET', '/rest/v1/targets/tags'),
    route('GET', '/rest/v1/targets/:targetId/actions/:actionId'),
    route('GET', '/:tenant/controller/v1/:controllerId'),
    route('GET', '/:tenant/controller/v1/:controllerId/deploymentBase/:actionId'),
    route('GET', '/health'),
  );

  it('matches static paths', () => {
    const m = r.match('GET', '/rest/v1/targets');
    expect(m.kind).toBe('found');
    if (m.kind === 'found') expect(m.entry.route.path).toBe('/rest/v1/targets');
  });

  it('prefers a static segment over a parameter', () => {
    const m = r.match('GET', '/rest/v1/targets/tags');
    expect(m.kind === 'found' && m.entry.route.path).toBe('/rest/v1/targets/tags');
  });

  it('decodes parameters and names them', () => {
    const m = r.match('GET', '/rest/v1/targets/dev%20one/actions/42');
    expect(m).toMatchObject({ kind: 'found', params: { targetId: 'dev one', actionId: '42' } });
  });

  it('backtracks from a static branch to a parameter', () => {
    // "rest" is static at the first level, but /rest/controller/v1/x only fits /:tenant/controller/v1/:controllerId
    const m = r.match('GET', '/rest/controller/v1/x');
    expect(m).toMatchObject({ kind: 'found', params: { tenant: 'rest', controllerId: 'x' } });
  });

  it('answers 404 when no pattern fits, including empty segments and trailing slashes', () => {
    expect(r.match('GET', '/nope').kind).toBe('not-found');
    expect(r.match('GET', '/rest/v1/targets//actions/1').kind).toBe('not-found');
    expect(r.match('GET', '/health/').kind).toBe('not-found');
    expect(r.match('GET', 'health').kind).toBe('not-found');
  });

  it('answers 405 with Allow when only the method differs', () => {
    expect(r.match('DELETE', '/rest/v1/targets/x')).toEqual({ kind: 'method-not-allowed', allow: 'GET, PUT, HEAD' });
    expect(r.match('POST', '/health')).toEqual({ kind: 'method-not-allowed', allow: 'GET, HEAD' });
  });

  it('serves HEAD with the GET route', () => {
    const m = r.match('HEAD', '/health');
    expect(m.kind === 'found' && m.entry.method).toBe('GET');
  });

  it.each([
    ['/rest/v1/targets/a%2Fb', "must not contain '/'"],
    ['/rest/v1/targets/%2e%2e', "must not be '..'"],
    ['/rest/v1/targets/..', "must not be '..'"],
    ['/rest/v1/targets/a%00b', 'must not contain NUL'],
    ['/rest/v1/targets/%E0%A4%A', 'is not valid percent-encoding'],
    ['/rest/v1/targets/%zz', 'is not valid percent-encoding'],
  ])('refuses the parameter in %s', (path, problem) => {
    expect(r.match('GET', path)).toEqual({ kind: 'bad-param', name: 'targetId', problem });
  });

  it('refuses duplicate routes and malformed patterns', () => {
    expect(() => routerOf(route('GET', '/a'), route('GET', '/a'))).toThrow(/duplicate route/);
    expect(() => routerOf(route('GET', '/a/:x/:x'))).toThrow(/duplicate parameter/);
    expect(() => routerOf(route('GET', 'a'))).toThrow(/must start with/);
    expect(() => routerOf(route('GET', '/a//b'))).toThrow(/empty segment/);
  });

  it('takes a trailing slash as a route of its own (the console at /ui/)', () => {
    const rr = routerOf(route('GET', '/ui'), route('GET', '/ui/'));
    expect(rr.match('GET', '/ui/')).toMatchObject({ kind: 'found', entry: { route: { path: '/ui/' } } });
    expect(rr.match('GET', '/ui')).toMatchObject({ kind: 'found', entry: { route: { path: '/ui' } } });
    expect(rr.match('GET', '/ui//').kind).toBe('not-found');
  });

  it('lets parameters at the same position carry different names per route', () => {
    const rr = routerOf(route('GET', '/t/:id'), route('GET', '/t/:controllerId/attributes'));
    expect(rr.match('GET', '/t/a')).toMatchObject({ params: { id: 'a' } });
    expect(rr.match('GET', '/t/a/attributes')).toMatchObject({ params: { controllerId: 'a' } });
  });

  it('matches the root path', () => {
    const rr = routerOf(route('GET', '/'));
    expect(rr.match('GET', '/').kind).toBe('found');
  });
});
