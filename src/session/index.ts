/**
 * Sign-in for people (issue 22): password and OpenID Connect sign-in for the browser console and the
 * session cookie they get (src/auth holds the cookie, the provider and the Management authenticator).
 * @see docs/auth.md
 */
import type { AppModule, ModuleContext } from '../module.js';
import type { Auth } from '../auth/index.js';
import { accountRoutes } from './account-routes.js';
import { oidcRoutes } from './oidc-routes.js';

export interface SessionDeps {
  readonly auth: Auth;
  readonly ctx: Pick<ModuleContext, 'config' | 'logger'>;
}

export function sessionModule(deps: SessionDeps): AppModule {
  const { auth, ctx } = deps;
  return {
    name: 'session',
    routes: [...accountRoutes(auth), ...(auth.oidc === undefined ? [] : oidcRoutes(auth, auth.oidc, ctx.logger))],
    primaryOnly: true, // start() only warns, once per process
    async start() {
      const { store, auth: settings } = ctx.config;
      if (settings.session.secretGenerated && store.kind === 'redis') {
        ctx.logger.warn('auth.session.secret is not set: this process signs sessions with a key of its own, so a session works only on the instance that made it; set one shared secret on every instance');
      }
    },
  };
}
