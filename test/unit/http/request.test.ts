import { describe, expect, it } from 'vitest';
import { baseUrlOf, HttpRequest, ipText, normalizeIp } from '../../../src/http/request.js';

describe('addresses', () => {
  it('renders uWS binary addresses', () => {
    expect(ipText(new Uint8Array([127, 0, 0, 1]))).toBe('127.0.0.1');
    expect(ipText(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3]))).toBe('10.1.2.3');
    expect(ipText(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))).toBe('::1');
    expect(ipText(new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]))).toBe('2001:db8::10');
  });

  it('normalises configured addresses', () => {
    expect(normalizeIp('127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeIp('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(normalizeIp('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(normalizeIp('not-an-ip')).toBeUndefined();
  });
});

describe('base URL', () => {
  const fwd = { host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'updates.example.com', 'x-forwarded-port': '443' };

  it('uses the Host header when the peer is not trusted', () => {
    expect(baseUrlOf(fwd, false, '127.0.0.1:8080')).toBe('http://internal:8080');
  });

  it('honours X-Forwarded-* from a trusted proxy', () => {
    expect(baseUrlOf(fwd, true, '127.0.0.1:8080')).toBe('https://updates.example.com');
    expect(baseUrlOf({ ...fwd, 'x-forwarded-port': '8443' }, true, 'x')).toBe('https://updates.example.com:8443');
    expect(baseUrlOf({ host: 'h:1', 'x-forwarded-proto': 'https, http' }, true, 'x')).toBe('https://h:1');
  });

  it('ignores malformed hosts and schemes', () => {
    expect(baseUrlOf({ host: 'evil.com/path?' }, false, '127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(baseUrlOf({ host: 'h', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'a b' }, true, 'x')).toBe('http://h');
    expect(baseUrlOf({}, false, '127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(baseUrlOf({ host: '[::1]:8080' }, false, 'x')).toBe('http://[::1]:8080');
  });

  it('computes query, remote address and signal lazily', () => {
    const req = new HttpRequest({
      method: 'GET', path: '/x', rawQuery: 'a=1&a=2&b=%20', headers: { host: 'h' }, params: {},
      remote: new Uint8Array([10, 0, 0, 7]), fromTrustedProxy: false, fallbackHost: 'f',
    });
    expect(req.query.get('a')).toBe('1');
    expect(req.query.get('b')).toBe(' ');
    expect(req.remoteAddress).toBe('10.0.0.7');
    expect(req.baseUrl).toBe('http://h');
    expect(req.signal.aborted).toBe(false);
    req.markAborted();
    expect(req.signal.aborted).toBe(true);
  });
});
