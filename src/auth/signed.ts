/**
 * Signed, stateless tokens for cookies: base64url(JSON payload) "." base64url(HMAC-SHA256 of that text).
 * Nothing is encrypted (the cookies are HttpOnly and hold nothing secret from their owner); any
 * changed byte fails the signature, compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signPayload(key: Buffer, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The payload when the signature is ours, else undefined (never throws). */
export function verifyPayload(key: Buffer, token: string): unknown {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const body = token.slice(0, dot);
  // the texts, not their decoded bytes: base64url decoding ignores stray characters and spare bits
  if (!sameText(token.slice(dot + 1), mac(key, body))) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}

/** Constant-time equality of two strings (different lengths are simply unequal). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
