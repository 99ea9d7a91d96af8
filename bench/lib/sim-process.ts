/**
 * The bundled simulator (peregrine-sim, dist/simulator/cli.js) as a process of its own, driving a fleet
 * from a scenario the benchmark writes: the devices' CPU is then not the server's, and can be measured
 * (and checked for saturation) apart from it. It runs until stopped; stopping it (SIGTERM, the CLI's
 * own way to end a run early) writes its report, which `stop` answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report } from '../../simulator/report.js';
import { rssOf } from './server.js';

const SIM_CLI = fileURLToPath(new URL('../../simulator/cli.js', import.meta.url));

export interface FleetProcess {
  readonly pid: number;
  /** Resident memory of the simulator process (bytes). */
  rss(): number;
  /** Its exit code once it ended (null: by a signal); undefined while it runs. */
  exited(): number | null | undefined;
  /** Ends the run (SIGTERM) and answers the simulator's report. */
  stop(): Promise<Report>;
}

/** Starts peregrine-sim on `scenario` (an object; written as JSON, which the scenario loader reads as YAML). */
export function startFleetProcess(scenario: Record<string, unknown>): FleetProcess {
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-bench-sim-'));
  const file = join(dir, 'scenario.yaml');
  const report = join(dir, 'report.json');
  writeFileSync(file, JSON.stringify(scenario));
  const child: ChildProcess = spawn(process.execPath, [SIM_CLI, '--scenario', file, '--quiet', '--report', report], { stdio: ['ignore', 'inherit', 'inherit'] });
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.once('exit', (code) => { exited = code; resolve(); }));
  const pid = child.pid ?? 0;
  return {
    pid,
    rss: () => rssOf(pid),
    exited: () => exited,
    async stop() {
      if (exited === undefined) child.kill('SIGTERM');
      await exit;
      try {
        return JSON.parse(readFileSync(report, 'utf8')) as Report;
      } catch {
        throw new Error(`the simulator exited with ${exited} and wrote no report`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
