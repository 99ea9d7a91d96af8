/**
 * Cookies as the sign-in code uses them: reading one by name from the Cookie header, and writing a
 * Set-Cookie value (RFC 6265). Values written here are base64url text, so they need no quoting.
 */

/** The value of cookie `name` in a Cookie header, or undefined (the first one when repeated). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  }
  return undefined;
}

export interface CookieOptions {
  readonly path: string;
  readonly sameSite: 'Strict' | 'Lax';
  /** Seconds; 0 deletes the cookie. */
  readonly maxAge: number;
  readonly secure: boolean;
}

/** A Set-Cookie value; always HttpOnly (no script of the page ever needs these). */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  return `${name}=${value}; Path=${o.path}; Max-Age=${o.maxAge}; HttpOnly; SameSite=${o.sameSite}${o.secure ? '; Secure' : ''}`;
}

/** Secure cookies when the client reached us over https (Request.baseUrl honours a trusted proxy). */
export function isHttps(baseUrl: string): boolean {
  return baseUrl.startsWith('https:');
}
