/**
 * How large a fleet one simulator process drives: idle devices polling a real server (own process,
 * memory store) every 60 s, first polls spread over one interval. Per fleet size it reports the heap
 * the fleet holds per device (after a full poll round, gc'd) and how late polls were answered against
 * their schedule (p50/p99/max and the count later than 1 s).
 *
 *   node --expose-gc dist/bench/sim-fleet.js [--devices 10000,100000] [--interval 60] [--rounds 2]
 */
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { runScenario } from '../simulator/run.js';
import { writeResults } from './lib/results.js';
import { serverConfig } from './lib/fleet.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--devices <list>', 'fleet sizes, comma-separated', '10000,100000')
  .option('--interval <s>', 'poll interval in seconds', '60')
  .option('--rounds <n>', 'poll rounds measured after the ramp', '2')
  .parse().opts<{ devices: string; interval: string; rounds: string }>();
const interval = Number(o.interval);
const rounds = Number(o.rounds);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const heap = (): number => { gc(); gc(); return process.memoryUsage().heapUsed; };
const rows: Record<string, unknown>[] = [];
for (const devices of o.devices.split(',').map(Number)) {
  const server = await startServer(serverConfig('memory'));
  try {
    const before = heap();
    let held = 0;
    // sampled after the ramp and one more interval: every device polled at least twice and holds its ETag
    const sample = setTimeout(() => { held = heap() - before; }, (2 * interval + 5) * 1000);
    const r = await runScenario({
      name: `idle-${devices}`, server: server.url, admin: 'admin:admin', timeScale: 1, rampSeconds: interval,
      durationSeconds: interval * (1 + rounds) + 10, connections: 64,
      tenantConfig: { pollingTime: `00:${String(Math.floor(interval / 60)).padStart(2, '0')}:${String(interval % 60).padStart(2, '0')}` },
      fleet: {
        auth: { mode: 'gateway', token: 'bench-sim-gateway' }, behaviour: { poll: { jitter: 0 } },
        groups: [{ name: 'idle', count: devices }],
      },
    }, { quiet: true, err: new Writable({ write: (c: Buffer, _e, done) => { process.stderr.write(c); done(); } }) });
    clearTimeout(sample);
    const rep = r.report!;
    rows.push({
      devices, intervalS: interval, polls: rep.requests.byKind.poll?.count ?? 0,
      errors: Object.values(rep.errorsByStatus).reduce((a, b) => a + b, 0), heapPerDeviceBytes: Math.round(held / devices),
      lagP50Ms: rep.polls.lagMs.p50, lagP99Ms: rep.polls.lagMs.p99, lagMaxMs: rep.polls.lagMs.max, pollsLateOver1s: rep.polls.lateOver1s,
      pollP99Ms: rep.requests.byKind.poll?.latencyMs.p99 ?? 0, serverRssMiB: Math.round(server.rss() / 2 ** 20),
    });
    console.log(JSON.stringify(rows[rows.length - 1]));
  } finally {
    await server.stop();
  }
}
writeResults('sim-fleet', { interval, rounds }, rows);
