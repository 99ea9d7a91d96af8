export type SegmentKind = 'success' | 'error' | 'running' | 'scheduled' | 'other';

export interface Segment {
  readonly value: number;
  readonly label: string;
  readonly kind: SegmentKind;
}

interface Props {
  readonly segments: readonly Segment[];
  /** The whole (default: the sum of the segments). */
  readonly total?: number;
  /** The accessible name (`Rollout progress`). */
  readonly label?: string;
  /** Shows a legend with each segment's count under the bar. */
  readonly legend?: boolean;
}

/**
 * A stacked bar; role=progressbar whose value is what is done (success and error segments), with a text
 * naming every segment for screen readers.
 */
export function ProgressBar({ segments, total, label = 'Progress', legend = false }: Props) {
  const sum = segments.reduce((n, s) => n + Math.max(0, s.value), 0);
  const whole = Math.max(total ?? sum, sum);
  const done = segments.filter((s) => s.kind === 'success' || s.kind === 'error').reduce((n, s) => n + Math.max(0, s.value), 0);
  const text = segments.map((s) => `${s.value} ${s.label}`).join(', ');
  return (
    <div class="progress-wrap">
      <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={whole} aria-valuenow={done}
        aria-valuetext={whole === 0 ? 'nothing yet' : text}>
        {whole > 0 && segments.filter((s) => s.value > 0).map((s) => (
          <span key={s.label} class={`seg seg-${s.kind}`} style={{ width: `${(100 * s.value) / whole}%` }} title={`${s.label}: ${s.value}`} />
        ))}
      </div>
      {legend && (
        <ul class="legend">
          {segments.map((s) => <li key={s.label}><span class={`dot seg-${s.kind}`} aria-hidden="true" />{s.label} {s.value}</li>)}
        </ul>
      )}
    </div>
  );
}
