/** `peregrine rollouts list [--status S]`: every rollout (all pages) as a table. */
import { connectionFrom, getAll } from './client.js';
import { table, time } from './format.js';
import type { OpsIo } from './io.js';

export interface RolloutsListOptions {
  readonly url?: string;
  readonly status?: string;
}

interface RolloutJson {
  id: number;
  name: string;
  status: string;
  totalTargets?: number;
  totalTargetsPerStatus?: Record<string, number>;
  createdAt?: number;
}

export async function rolloutsList(opts: RolloutsListOptions, io: OpsIo): Promise<number> {
  const conn = connectionFrom(opts.url, io.env);
  const query = new URLSearchParams({ representation: 'full', sort: 'id:ASC' });
  if (opts.status !== undefined) query.set('q', `status==${opts.status}`);
  const { rows } = await getAll<RolloutJson>(conn, '/rest/v1/rollouts', query);
  const lines = table(['ID', 'NAME', 'STATUS', 'PROGRESS', 'CREATED'], rows.map((r) => [
    String(r.id), r.name, r.status, `${r.totalTargetsPerStatus?.['finished'] ?? 0}/${r.totalTargets ?? 0}`, time(r.createdAt),
  ]));
  io.out.write(`${lines.join('\n')}\n`);
  if (rows.length === 0) io.err.write(`no rollouts${opts.status === undefined ? '' : ` with status ${opts.status}`}\n`);
  return 0;
}
