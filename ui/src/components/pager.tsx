interface Props {
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  /** Called with the new offset. */
  readonly onChange: (offset: number) => void;
}

/** `21–40 of 135` with previous and next buttons (server paging). */
export function Pager({ total, offset, limit, onChange }: Props) {
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(total, offset + limit);
  return (
    <nav class="pager" aria-label="Pages">
      <span aria-live="polite">{first}–{last} of {total}</span>
      <button type="button" class="btn btn-plain" disabled={offset <= 0} onClick={() => { onChange(Math.max(0, offset - limit)); }}>
        ‹ Previous
      </button>
      <button type="button" class="btn btn-plain" disabled={offset + limit >= total} onClick={() => { onChange(offset + limit); }}>
        Next ›
      </button>
    </nav>
  );
}
