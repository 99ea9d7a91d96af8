/**
 * latest.svg: a horizontal bar per row that has a `ratio` (peregrine's throughput over the ceiling's), labelled
 * with the benchmark and the row's names, a line at 1.0. Hand-written SVG, no library.
 */
import type { Section } from './section.js';

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One bar per row with a numeric `ratio`: label "<section>: <the row's text cells>". */
export function ratioRows(sections: readonly Section[]): { label: string; ratio: number }[] {
  return sections.flatMap((s) => s.rows.flatMap((r) => {
    const ratio = r['ratio'];
    if (typeof ratio !== 'number' || !Number.isFinite(ratio)) return [];
    const names = Object.values(r).filter((v): v is string => typeof v === 'string');
    return [{ label: `${s.name}: ${names.join(' / ')}`, ratio }];
  }));
}

export function ratioChart(sections: readonly Section[], title: string): string {
  const rows = ratioRows(sections);
  const LABEL = 420, BAR = 360, ROW = 22, TOP = 40;
  const max = Math.max(1, ...rows.map((r) => r.ratio));
  const x = (ratio: number): number => LABEL + (ratio / max) * BAR;
  const height = TOP + rows.length * ROW + 20;
  const width = LABEL + BAR + 60;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escape(title)}</title>`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${escape(title)}</text>`,
    ...rows.flatMap((r, i) => {
      const y = TOP + i * ROW;
      return [
        `<text x="${LABEL - 8}" y="${y + 14}" text-anchor="end">${escape(r.label)}</text>`,
        `<rect class="bar" x="${LABEL}" y="${y + 3}" width="${(x(r.ratio) - LABEL).toFixed(1)}" height="${ROW - 6}" fill="${r.ratio >= 1 ? '#2a9d55' : '#3b6fb6'}"/>`,
        `<text x="${(x(r.ratio) + 4).toFixed(1)}" y="${y + 14}">${r.ratio.toFixed(2)}</text>`,
      ];
    }),
    `<line x1="${x(1).toFixed(1)}" y1="${TOP - 4}" x2="${x(1).toFixed(1)}" y2="${height - 16}" stroke="#c33" stroke-dasharray="4 3"/>`,
    `<text x="${x(1).toFixed(1)}" y="${height - 4}" text-anchor="middle" fill="#c33">1.0 = ceiling</text>`,
    '</svg>',
    '',
  ].join('\n');
}
