/**
 * What a Redis server has done, from its INFO: commands (those inside scripts included), script calls, the
 * main thread's CPU time, memory, keys and calls per command name. Two snapshots give a window's rates.
 */
import type { createClient } from 'redis';

export interface Snapshot {
  readonly at: number;
  readonly memory: number;
  readonly commands: number;
  readonly scripts: number;
  readonly cpuS: number;
  readonly keys: number;
  readonly tracked: number;
  readonly calls: ReadonlyMap<string, number>;
}

export async function snapshot(redis: ReturnType<typeof createClient>): Promise<Snapshot> {
  const info = await redis.info('everything');
  const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  const calls = new Map<string, number>();
  for (const [, name, n] of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) calls.set(name!, Number(n));
  return {
    at: performance.now(),
    memory: field('used_memory'),
    // the INFO of this snapshot is counted in the next window: take it off here
    commands: field('total_commands_processed') - 1,
    scripts: calls.get('evalsha') ?? 0,
    cpuS: field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread'),
    keys: Number(/^db0:keys=(\d+)/m.exec(info)?.[1] ?? 0),
    tracked: field('tracking_total_keys'),
    calls,
  };
}

/**
 * The commands of a window as Redis counts them (the commands inside scripts included), most first: the top 6,
 * or all with `all`; `minus` (calls per name) is taken off first (the bench's own status reads).
 */
export function topCalls(a: Snapshot, b: Snapshot, per: number, minus: ReadonlyMap<string, number> = new Map(), all = false): string {
  const deltas = [...b.calls]
    .map(([name, n]) => [name, n - (a.calls.get(name) ?? 0) - (minus.get(name) ?? 0)] as const)
    .filter(([name, d]) => d / per >= 0.005 && name !== 'info');
  return deltas.sort((x, y) => y[1] - x[1]).slice(0, all ? undefined : 6).map(([name, d]) => `${name} ${(d / per).toFixed(2)}`).join(', ');
}
