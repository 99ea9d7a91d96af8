import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { errorText } from '../components/error-banner.js';

/** A distribution set as the pickers show it. */
export interface SetChoice {
  readonly id: number;
  readonly name: string;
  readonly version: string;
  readonly complete?: boolean;
}

interface Props {
  readonly value: number | null;
  readonly onChange: (id: number, set: SetChoice) => void;
  readonly label?: string;
}

const SHOWN = 8;

/** `name==*text*,version==*text*` with the text quoted (FIQL's quoted values take spaces and operators). */
export function setSearchQuery(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const quoted = `"*${t.replace(/["\\]/g, (c) => `\\${c}`)}*"`;
  return `name==${quoted},version==${quoted}`;
}

/**
 * A searchable choice of distribution set: typing searches the server (name or version, newest first),
 * the matches are radio buttons (arrow keys move between them).
 */
export function DsSelect({ value, onChange, label = 'Distribution set' }: Props) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<{ sets: readonly SetChoice[]; total: number }>();
  const [error, setError] = useState<string>();
  const [chosen, setChosen] = useState<SetChoice>();
  const seq = useRef(0);
  const id = useRef(`ds-${Math.random().toString(36).slice(2, 8)}`).current;

  useEffect(() => {
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      api.page<SetChoice>('/rest/v1/distributionsets', { q: setSearchQuery(text), limit: SHOWN, sort: 'id:DESC' }).then(
        (page) => { if (mine === seq.current) { setFound({ sets: page.content, total: page.total }); setError(undefined); } },
        (e: unknown) => { if (mine === seq.current) setError(errorText(e)); },
      );
    }, 250);
    return () => { clearTimeout(timer); };
  }, [text]);

  // the chosen set stays visible when a search no longer lists it
  useEffect(() => {
    if (value === null || chosen?.id === value) return;
    api.get<SetChoice>(`/rest/v1/distributionsets/${value}`).then(setChosen, () => undefined);
  }, [value]);

  const sets = found?.sets ?? [];
  const listed = chosen !== undefined && chosen.id === value && !sets.some((s) => s.id === value) ? [chosen, ...sets] : sets;
  return (
    <fieldset class="ds-select">
      <legend>{label}</legend>
      <input id={`${id}-q`} type="search" class="input" value={text} placeholder="Search by name or version" aria-label={`Search ${label.toLowerCase()}`}
        autoComplete="off" onInput={(e) => { setText(e.currentTarget.value); }} />
      {error !== undefined && <div class="fiql-error" role="alert">{error}</div>}
      <div class="choice-list" role="radiogroup" aria-label={label}>
        {listed.map((s) => (
          <label key={s.id} class={s.id === value ? 'choice chosen' : 'choice'}>
            <input type="radio" name={id} value={s.id} checked={s.id === value}
              onChange={() => { setChosen(s); onChange(s.id, s); }} />
            <span>{s.name} <span class="muted">{s.version}</span>{s.complete === false && <span class="badge badge-warn">incomplete</span>}</span>
          </label>
        ))}
        {found !== undefined && listed.length === 0 && <p class="muted">No distribution set matches.</p>}
      </div>
      {found !== undefined && found.total > SHOWN && <p class="muted small">{found.total - SHOWN} more; type to narrow the search.</p>}
    </fieldset>
  );
}
