/**
 * The headers a mutual-TLS reverse proxy writes for a certificate it verified (spec 5), in both
 * generations of hawkBit's names: 0.9 `X-Ssl-Client-Cn` with `X-Ssl-Issuer-Hash[-N]`, 1.0 onwards
 * `X-Controller-Id` with `X-Authority[-N]` (hawkBit's `hawkbit.server.ddi.security.rp` defaults).
 * They count only from a trusted proxy: from anyone else the http layer drops them.
 */

/** One generation's pair: the header naming the controller id, and the authority header's base name. */
export interface CertificateHeaderNames {
  /** The hawkBit generation that uses these names (config `ddi.authentication.certificateHeaders`). */
  readonly generation: '0.9' | '1.x';
  readonly controllerId: string;
  readonly authority: string;
}

/** Lower case, as the http layer keys headers; the 1.0 names are tried first. */
export const CERTIFICATE_HEADERS: readonly CertificateHeaderNames[] = [
  { generation: '1.x', controllerId: 'x-controller-id', authority: 'x-authority' },
  { generation: '0.9', controllerId: 'x-ssl-client-cn', authority: 'x-ssl-issuer-hash' },
];

/** Whether a (lower-case) header name is one a client may not set itself. */
export function isCertificateHeader(key: string): boolean {
  return key.startsWith('x-ssl-') || key === 'x-controller-id' || key === 'x-authority' || key.startsWith('x-authority-');
}
