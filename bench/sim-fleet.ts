/**
 * How large a fleet one simulator process drives: idle devices polling every 60 s, first polls spread
 * over one interval, against the real server (own process, memory store; the first poll of each
 * device registers it) or against the ceiling (a uWebSockets.js process answering every poll with
 * the same 200 body: the simulator's own limit). Per fleet size: heap the fleet holds per device
 * (gc'd, after every device polled twice), and how late polls were answered against their schedule:
 * polls later than 1 s over the whole run, and p99/max/late in the steady state (the last interval).
 *
 *   node --expose-gc dist/bench/sim-fleet.js [--devices 10000,100000] [--interval 60] [--against peregrine|ceiling]
 */
import { Writable } from 'node:stream';
import type { RecordableHistogram } from 'node:perf_hooks';
import { Command } from 'commander';
import { runScenario } from '../simulator/run.js';
import { startCeiling } from './lib/ceiling.js';
import { writeResults } from './lib/results.js';
import { serverConfig } from './lib/fleet.js';
import { startServer } from './lib/server.js';

const o = new Command()
  .option('--devices <list>', 'fleet sizes, comma-separated', '10000,100000')
  .option('--interval <s>', 'poll interval in seconds', '60')
  .option('--against <server>', 'peregrine or ceiling', 'peregrine')
  .parse().opts<{ devices: string; interval: string; against: string }>();
const interval = Number(o.interval);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const heap = (): number => { gc(); gc(); return process.memoryUsage().heapUsed; };
const sleep = `00:${String(Math.floor(interval / 60)).padStart(2, '0')}:${String(interval % 60).padStart(2, '0')}`;
const rows: Record<string, unknown>[] = [];
for (const devices of o.devices.split(',').map(Number)) {
  const ceiling = o.against === 'ceiling';
  const server = ceiling ? await startCeiling(JSON.stringify({ config: { polling: { sleep } } }), 'application/json')
    : await startServer(serverConfig('memory'));
  try {
    const before = heap();
    let held = 0;
    let steady = { p99: 0, max: 0, late: 0 };
    let lag: RecordableHistogram | undefined;
    let late = (): number => 0;
    // ramp (one interval), one full interval, then the steady one measured; heap sampled at its start
    const timers = [
      setTimeout(() => { held = heap() - before; lag?.reset(); }, 2 * interval * 1000),
      setTimeout(() => { if (lag) steady = { p99: lag.percentile(99), max: lag.max, late: late() }; }, 3 * interval * 1000 - 500),
    ];
    let lateAtReset = 0;
    const r = await runScenario({
      name: `idle-${devices}`, server: server.url, timeScale: 1, rampSeconds: interval, durationSeconds: 3 * interval,
      ...(ceiling ? {} : { admin: 'admin:admin', tenantConfig: { pollingTime: sleep } }),
      fleet: {
        auth: { mode: 'gateway', token: 'bench-sim-gateway' }, behaviour: { poll: { jitter: 0 } },
        groups: [{ name: 'idle', count: devices }],
      },
    }, {
      quiet: true, err: new Writable({ write: (c: Buffer, _e, done) => { process.stderr.write(c); done(); } }),
      observe: (stats) => {
        lag = stats.pollLag;
        late = () => stats.pollsLate - lateAtReset;
        timers.push(setTimeout(() => { lateAtReset = stats.pollsLate; }, 2 * interval * 1000));
      },
    });
    for (const t of timers) clearTimeout(t);
    const rep = r.report!;
    rows.push({
      against: o.against, devices, intervalS: interval, polls: rep.requests.byKind.poll?.count ?? 0,
      errors: Object.values(rep.errorsByStatus).reduce((a, b) => a + b, 0), heapPerDeviceBytes: Math.round(held / devices),
      lateOver1s: rep.polls.lateOver1s,
      steadyLagP99Ms: steady.p99, steadyLagMaxMs: steady.max, steadyLateOver1s: steady.late,
      serverRssMiB: Math.round(server.rss() / 2 ** 20),
    });
    console.log(JSON.stringify(rows[rows.length - 1]));
  } finally {
    await server.stop();
  }
}
writeResults('sim-fleet', { interval, against: o.against }, rows);
