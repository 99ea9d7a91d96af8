import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Button } from '../../components/button.js';
import { ErrorBanner } from '../../components/error-banner.js';
import { formatTime } from '../../components/format.js';
import { Page } from '../../components/page.js';
import { Spinner } from '../../components/spinner.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSubmit } from '../../hooks/use-submit.js';
import { PERM } from '../../model/permissions.js';
import type { RouteProps } from '../../router.js';
import { useSession } from '../../session.js';

type Scalar = string | number | boolean;

interface ConfigValue {
  readonly value: Scalar;
  /** True while the tenant keeps the system default. */
  readonly global?: boolean;
  readonly lastModifiedAt?: number;
  readonly lastModifiedBy?: string;
}

/** The text typed for a value, read back with the type the current value has. */
function parse(text: string, like: Scalar): Scalar {
  if (typeof like === 'number') return Number(text);
  return text;
}

/** When and by whom the tenant set the key; `default` while it follows the server's value. */
function Changed({ entry }: { readonly entry: ConfigValue }) {
  if (entry.global !== false) return <span class="muted">default</span>;
  if (entry.lastModifiedAt === undefined) return <span>set for this tenant</span>;
  return <span>{formatTime(entry.lastModifiedAt)} <span class="muted">by {entry.lastModifiedBy}</span></span>;
}

function ConfigRow({ name, entry, editable, onSaved }: { name: string; entry: ConfigValue; editable: boolean; onSaved: () => void }) {
  const [text, setText] = useState(String(entry.value));
  const save = useSubmit();
  const path = `/rest/v1/system/configs/${encodeURIComponent(name)}`;
  const id = `cfg-${name.replace(/[^a-z0-9]/gi, '-')}`;
  const changed = typeof entry.value === 'boolean' ? false : text !== String(entry.value);
  // a switch shows its new position at once, and its old one again if the server refuses
  const [on, setOn] = useState(entry.value === true);
  const put = (value: Scalar): void => {
    void save.run(async () => { await api.send('PUT', path, { value }); onSaved(); }).then((ok) => { if (!ok) setOn(entry.value === true); });
  };
  return (
    <tr>
      <td><label for={id} class="mono cfg-key">{name}</label></td>
      <td>
        {!editable ? <span class="mono">{String(entry.value)}</span> : typeof entry.value === 'boolean' ? (
          <input id={id} type="checkbox" checked={on} disabled={save.busy}
            onChange={(e) => { setOn(e.currentTarget.checked); put(e.currentTarget.checked); }} />
        ) : (
          <form class="cfg-edit" onSubmit={(e) => { e.preventDefault(); put(parse(text, entry.value)); }}>
            <input id={id} class="input mono" type={typeof entry.value === 'number' ? 'number' : 'text'} value={text}
              onInput={(e) => { setText(e.currentTarget.value); }} />
            {changed && <Button type="submit" variant="primary" busy={save.busy}>Save</Button>}
          </form>
        )}
        <ErrorBanner error={save.error} />
      </td>
      <td class="hide-phone">
        <Changed entry={entry} />
      </td>
      <td>
        {editable && entry.global === false && name !== 'default.ds.type' && (
          <Button busy={save.busy} onClick={() => { void save.run(async () => { await api.send('DELETE', path); onSaved(); }); }}>Reset</Button>
        )}
      </td>
    </tr>
  );
}

/** The tenant configuration (`/rest/v1/system/configs`): every key with its value; editable with TENANT_CONFIGURATION. */
export function ConfigView(_props: RouteProps) {
  const session = useSession();
  const configs = useLoad(() => api.get<Record<string, ConfigValue>>('/rest/v1/system/configs'), []);
  const editable = session.can(PERM.writeConfig);
  const entries = Object.entries(configs.data ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Page title="Configuration" subtitle="This tenant's settings; a key left at its default follows the server's configuration.">
      <ErrorBanner error={configs.error} onRetry={configs.reload} />
      {configs.data === undefined ? configs.error === undefined && <Spinner /> : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">Tenant configuration</caption>
            <thead><tr><th>Key</th><th>Value</th><th class="hide-phone">Changed</th><th><span class="sr-only">Reset</span></th></tr></thead>
            <tbody>
              {entries.map(([name, entry]) => (
                <ConfigRow key={`${name}:${String(entry.value)}:${entry.lastModifiedAt ?? 0}`} name={name} entry={entry} editable={editable}
                  onSaved={configs.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
