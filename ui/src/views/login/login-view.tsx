import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { errorText } from '../../components/error-banner.js';
import { useRoute } from '../../router.js';
import { signIn } from '../../session.js';

interface AuthMethods {
  readonly password?: boolean;
  readonly oidc?: { readonly enabled?: boolean; readonly loginUrl?: string };
}

/** Sign-in: username, password and an optional tenant; a single-sign-on button when OIDC is on. */
export function LoginView() {
  const route = useRoute();
  const [methods, setMethods] = useState<AuthMethods>({ password: true });
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(route.query.get('error') ?? undefined);
  useEffect(() => {
    document.title = 'Sign in · peregrine';
    api.get<AuthMethods>('/ui/api/auth-methods').then(setMethods, () => { /* password sign-in stays available */ });
  }, []);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(username.trim(), password, tenant.trim()); // the shell then opens the page asked for
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  const oidc = methods.oidc?.enabled === true ? methods.oidc.loginUrl ?? '/ui/oidc/login' : undefined;
  return (
    <main class="login" id="main">
      <form class="card login-card" onSubmit={(e) => { void submit(e); }} aria-labelledby="login-title">
        <div class="brand brand-large" aria-hidden="true"><span class="brand-mark" />peregrine</div>
        <h1 id="login-title">Sign in</h1>
        {error !== undefined && <div class="banner banner-error" role="alert">{error}</div>}
        {methods.password !== false && (
          <>
            <label for="login-username">Username</label>
            <input id="login-username" class="input" name="username" autoComplete="username" required autoFocus
              value={username} onInput={(e) => { setUsername(e.currentTarget.value); }} />
            <label for="login-password">Password</label>
            <input id="login-password" class="input" name="password" type="password" autoComplete="current-password" required
              value={password} onInput={(e) => { setPassword(e.currentTarget.value); }} />
            <label for="login-tenant">Tenant <span class="muted">(optional)</span></label>
            <input id="login-tenant" class="input" name="tenant" autoComplete="organization"
              value={tenant} onInput={(e) => { setTenant(e.currentTarget.value); }} />
            <button type="submit" class="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
          </>
        )}
        {oidc !== undefined && (
          <>
            {methods.password !== false && <div class="or" aria-hidden="true">or</div>}
            <a class="btn btn-plain btn-block" href={oidc}>Sign in with single sign-on</a>
          </>
        )}
      </form>
    </main>
  );
}
