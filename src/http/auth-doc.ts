/**
 * What a Management authenticator requires, kept beside the closure for the API document
 * (src/apidoc names each operation's permissions). A WeakMap: nothing is added to a request's path.
 */
import type { PermissionRequirement } from './auth-basic.js';
import type { Authenticator } from './types.js';

const requirements = new WeakMap<Authenticator, PermissionRequirement | null>();

/** `auth`, noted as requiring `permission` (undefined: any signed-in user). */
export function requiring(auth: Authenticator, permission: PermissionRequirement | undefined): Authenticator {
  requirements.set(auth, permission ?? null);
  return auth;
}

/** What `requiring` noted for `auth`: null for any signed-in user, undefined when nothing was noted. */
export function requirementOf(auth: Authenticator): PermissionRequirement | null | undefined {
  return requirements.get(auth);
}
