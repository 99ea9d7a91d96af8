/** `peregrine targets find '<FIQL>' [--limit N]`: the matching targets (paged) as a table. */
import { connectionFrom, getAll, OpsError } from './client.js';
import { cell, table, time } from './format.js';
import type { OpsIo } from './io.js';

export const DEFAULT_FIND_LIMIT = 100;

export interface TargetsFindOptions {
  readonly url?: string;
  readonly limit?: string;
}

interface TargetJson {
  controllerId: string;
  name?: string;
  updateStatus?: string;
  lastControllerRequestAt?: number;
}

export async function targetsFind(fiql: string, opts: TargetsFindOptions, io: OpsIo): Promise<number> {
  const limit = opts.limit === undefined ? DEFAULT_FIND_LIMIT : Number(opts.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new OpsError(`--limit must be a positive whole number, got '${opts.limit}'`, 2);
  const conn = connectionFrom(opts.url, io.env);
  const query = new URLSearchParams({ sort: 'controllerId:ASC' });
  if (fiql.trim() !== '') query.set('q', fiql);
  const { rows, total } = await getAll<TargetJson>(conn, '/rest/v1/targets', query, limit);
  const lines = table(['CONTROLLER ID', 'NAME', 'UPDATE STATUS', 'LAST REQUEST'], rows.map((t) => [
    t.controllerId, cell(t.name), cell(t.updateStatus), time(t.lastControllerRequestAt),
  ]));
  io.out.write(`${lines.join('\n')}\n`);
  if (total > rows.length) io.err.write(`${rows.length} of ${total} targets shown (--limit ${limit})\n`);
  else if (rows.length === 0) io.err.write('no targets match\n');
  return 0;
}
