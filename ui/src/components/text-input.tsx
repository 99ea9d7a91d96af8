import type { ComponentChildren } from 'preact';

interface Props {
  readonly id: string;
  readonly label: ComponentChildren;
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly type?: 'text' | 'number' | 'password' | 'search';
  readonly mono?: boolean;
  readonly autoFocus?: boolean;
}

/** A label and its input, for the console's forms. */
export function TextInput({ id, label, value, onValue, required = false, maxLength, type = 'text', mono = false, autoFocus = false }: Props) {
  return (
    <>
      <label for={id}>{label}</label>
      <input id={id} class={mono ? 'input mono' : 'input'} type={type} required={required} maxLength={maxLength} value={value}
        autoFocus={autoFocus} onInput={(e) => { onValue(e.currentTarget.value); }} />
    </>
  );
}
