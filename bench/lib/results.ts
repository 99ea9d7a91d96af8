import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

/** Writes bench/results/<name>-<time>.json and .md, and prints the markdown table. */
export function writeResults(
  name: string, params: Record<string, unknown>, rows: readonly Record<string, unknown>[], figures: Record<string, number> = {},
): void {
  const time = new Date().toISOString().replace(/[:.]/g, '-');
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}-${time}.json`), JSON.stringify({ name, time, machine, params, rows, figures }, null, 2));
  const cols = rows.length > 0 ? Object.keys(rows[0]!) : [];
  const md = [
    `# ${name} (${time})`, '', `machine: ${machine.cpus} cores, ${machine.cpu}, ${machine.memGiB} GiB, Node ${machine.node}`,
    `parameters: ${JSON.stringify(params)}`, '',
    `| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cols.map((c) => String(r[c])).join(' | ')} |`), '',
    ...Object.entries(figures).map(([k, v]) => `- ${k}: ${Number.isInteger(v) ? v : v.toFixed(2)}`), '',
  ].join('\n');
  writeFileSync(join(dir, `${name}-${time}.md`), md);
  console.log('\n' + md);
}
