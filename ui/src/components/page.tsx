import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

interface Props {
  readonly title: string;
  /** Buttons on the right of the heading (hidden ones render nothing). */
  readonly actions?: ComponentChildren;
  /** A line under the heading. */
  readonly subtitle?: ComponentChildren;
  readonly children?: ComponentChildren;
}

/** A view's frame: heading, actions, body; sets the document title. */
export function Page({ title, actions, subtitle, children }: Props) {
  useEffect(() => { document.title = `${title} · peregrine`; }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <div>
          <h1 id="page-title">{title}</h1>
          {subtitle !== undefined && <p class="muted">{subtitle}</p>}
        </div>
        {actions !== undefined && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
