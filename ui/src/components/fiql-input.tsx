import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { errorText } from './error-banner.js';

interface Props {
  readonly value: string;
  /** Called after typing pauses; `valid` is false when the server refused the query. */
  readonly onChange: (q: string, valid: boolean) => void;
  readonly label?: string;
  readonly placeholder?: string;
  /** The list the count is taken on (default: targets), and what its entries are called. */
  readonly countPath?: string;
  readonly noun?: string;
  readonly delayMs?: number;
}

/** A FIQL text input with a live "N matching targets" count, or the server's message for a bad query. */
export function FiqlInput({
  value, onChange, label = 'Filter (FIQL)', placeholder = 'name==dev-* and updateStatus==error',
  countPath = '/rest/v1/targets', noun = 'targets', delayMs = 300,
}: Props) {
  const [text, setText] = useState(value);
  const [count, setCount] = useState<number | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const seq = useRef(0);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => { setText(value); }, [value]);
  useEffect(() => {
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      const q = text.trim();
      api.page(countPath, { q: q === '' ? undefined : q, limit: 1 }).then(
        (page) => {
          if (mine !== seq.current) return;
          setCount(page.total);
          setError(undefined);
          if (q !== value.trim()) changed.current(q, true);
        },
        (e: unknown) => {
          if (mine !== seq.current) return;
          setCount(undefined);
          setError(errorText(e));
          if (q !== value.trim()) changed.current(q, false);
        },
      );
    }, delayMs);
    return () => { clearTimeout(timer); };
    // value is read only to skip echoing the parent's own value back
  }, [text, countPath, delayMs]);
  const id = useRef(`fiql-${Math.random().toString(36).slice(2, 8)}`).current;
  return (
    <div class="fiql">
      <label for={id}>{label}</label>
      <input id={id} type="search" class="input mono" value={text} placeholder={placeholder} spellcheck={false} autoComplete="off"
        aria-invalid={error !== undefined} aria-describedby={`${id}-status`}
        onInput={(e) => { setText(e.currentTarget.value); }} />
      <div id={`${id}-status`} class={error === undefined ? 'fiql-count muted' : 'fiql-error'} aria-live="polite">
        {error ?? (count === undefined ? '\u00a0' : `${count} matching ${noun}`)}
      </div>
    </div>
  );
}
