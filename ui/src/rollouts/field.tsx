import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useRef } from 'preact/hooks';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onInput' | 'value' | 'label'> & {
  readonly label: string;
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly hint?: ComponentChildren;
};

/** A labelled text input (the label is clickable, the hint read with it). */
export function TextField({ label, value, onValue, hint, class: extra, ...rest }: InputProps) {
  const id = useRef(`f-${Math.random().toString(36).slice(2, 8)}`).current;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input {...rest} id={id} class={typeof extra === 'string' ? `input ${extra}` : 'input'} value={value} aria-describedby={hint === undefined ? undefined : `${id}-hint`}
        onInput={(e) => { onValue(e.currentTarget.value); }} />
      {hint !== undefined && <small id={`${id}-hint`} class="muted">{hint}</small>}
    </div>
  );
}

interface SelectProps<V extends string> {
  readonly label: string;
  readonly value: V;
  readonly options: readonly (readonly [V, string])[];
  readonly onValue: (value: V) => void;
}

/** A labelled select over fixed options. */
export function SelectField<V extends string>({ label, value, options, onValue }: SelectProps<V>) {
  const id = useRef(`f-${Math.random().toString(36).slice(2, 8)}`).current;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} class="input" value={value} onChange={(e) => { onValue(e.currentTarget.value as V); }}>
        {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
      </select>
    </div>
  );
}

/** A labelled checkbox. */
interface CheckProps {
  readonly label: string;
  readonly checked: boolean;
  readonly onValue: (v: boolean) => void;
}

export function CheckField({ label, checked, onValue }: CheckProps) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => { onValue(e.currentTarget.checked); }} />
      {label}
    </label>
  );
}
