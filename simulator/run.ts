/**
 * The library API of the simulator: `runScenario(fileOrObject, options)` validates the scenario,
 * prepares the tenant over the Management API, starts the fleet, runs the steps, watches the
 * expectations and answers the report with the exit code (0 passed, 1 an expectation failed or the
 * server could not be reached, 2 bad input: scenario or admin credentials). The CLI and the tests use it.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { LiveDisplay } from './display.js';
import { isEventual, judge, type Observation, type Verdict } from './expectations.js';
import { CommandError, runCommand } from './command.js';
import { Fleet, newRunId } from './fleet.js';
import { RUN_ATTRIBUTE } from './group.js';
import { SimHttp } from './http.js';
import { AdminAuthError, groupFilter, Mgmt, MgmtError, reach, UnreachableError, type RolloutGroupView, type RolloutView } from './mgmt.js';
import { buildReport, formatReport, type ExpectationResult, type Report } from './report.js';
import { createRunTenant, type RunTenant } from './run-tenant.js';
import { loadScenario, ScenarioError, serverBase, validateScenario, withOverrides, type Overrides, type Scenario, type Step } from './scenario.js';
import { Stats } from './stats.js';

export interface RunOptions {
  readonly overrides?: Overrides;
  /** Live display and final table (default process.stdout). */
  readonly out?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Problems and failed expectations (default process.stderr). */
  readonly err?: NodeJS.WritableStream;
  /** No live display and no table (failures are still written to err). */
  readonly quiet?: boolean;
  /** Write the JSON report to this file. */
  readonly reportFile?: string;
  /** Plain (non-TTY) progress line interval. */
  readonly plainEveryMs?: number;
  /** Ends the run early, as if its duration were over. */
  readonly signal?: AbortSignal;
  /** Called as the fleet starts, with its live figures (benchmarks sample them). */
  readonly observe?: (stats: Stats, fleet: Fleet) => void;
}

export interface RunResult {
  readonly exitCode: number;
  /** Undefined when the run did not start (bad scenario). */
  readonly report?: Report;
  /** The message of what stopped the run, if anything did. */
  readonly error?: string;
}

/** Thrown by a step that cannot go on (a wait that timed out); ends the run with exit 1. */
class StepError extends Error {}
/** The server refused the fleet outright (no such tenant): exit 2, bad input. */
class RefusedError extends Error {}

interface RolloutState {
  id: number; startedAt?: number; endedAt?: number; view?: RolloutView; readonly seen: Map<string, number>; pausedByError: boolean;
  /** Its deploy groups as last read (only for the live view on a terminal, and to tell an error pause). */
  groups?: readonly RolloutGroupView[];
}

export async function runScenario(source: string | object, o: RunOptions = {}): Promise<RunResult> {
  const out = o.out ?? process.stdout;
  const err = o.err ?? process.stderr;
  const log = (line: string): void => { err.write(`${line}\n`); };
  let s: Scenario;
  try {
    const raw = typeof source === 'string' ? loadScenario(source) : source;
    s = validateScenario(withOverrides(raw, o.overrides ?? {}), typeof source === 'string' ? source : 'scenario');
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    log(e.message);
    return { exitCode: 2, error: e.message };
  }

  const runId = newRunId();
  let runTenant: RunTenant | undefined;
  if (s.tenantPerRun) {
    try {
      runTenant = await createRunTenant(s, runId, log);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      log(message);
      return { exitCode: e instanceof AdminAuthError ? 2 : 1, error: message };
    }
    s = { ...s, tenant: runTenant.name, admin: runTenant.credentials };
    if (!o.quiet) out.write(`tenant ${runTenant.name} created for this run\n`);
  }
  const stats = new Stats();
  const http = new SimHttp(s.server, s.connections, stats, Math.random);
  const fleet = new Fleet(s, http, stats, Math.random, runId);
  const mgmt = s.admin ? new Mgmt(s.server, s.admin, log) : undefined;
  const phases: { name: string; seconds: number }[] = [];
  let phaseName = 'preparing';
  let phaseStart = Date.now();
  const phase = (next: string): void => {
    phases.push({ name: phaseName, seconds: Math.round((Date.now() - phaseStart) / 100) / 10 });
    phaseName = next;
    phaseStart = Date.now();
  };
  let rollout: RolloutState | undefined;
  let dsId: number | undefined;
  /** The set made by the createDistributionSet step before the last one (createRollout's rollbackToPrevious). */
  let previousDsId: number | undefined;
  /** The version of the set this run created (its own release), if it made one. */
  let release: string | undefined;
  /** Whether the run's assignments install its release (false when all are download-only, which never install it). */
  let installs: boolean | undefined;
  /** This run's targets of these groups: the groups' id patterns and the run's id, which each device reports. */
  const runFilter = (gs: Parameters<typeof groupFilter>[0]): string => `(${groupFilter(gs)});attribute.${RUN_ATTRIBUTE}==${fleet.runId}`;
  const display = o.quiet ? undefined
    : new LiveDisplay({
      fleet, stats, phase: () => phaseName, rollout: () => rollout?.view, groups: () => rollout?.groups,
    }, out, o.plainEveryMs);
  const tty = display !== undefined && out.isTTY === true;
  const deadline = Date.now() + s.durationSeconds * 1000;
  const over = (): boolean => Date.now() >= deadline || o.signal?.aborted === true;
  const verdicts = new Map<number, Verdict>();
  let exitCode = 0;
  let error: string | undefined;

  const refreshRollout = async (): Promise<void> => {
    if (!rollout || !mgmt) return;
    const view = await mgmt.rollout(rollout.id);
    rollout.view = view;
    if (!rollout.seen.has(view.status)) rollout.seen.set(view.status, Date.now());
    if (['finished', 'stopped', 'paused'].includes(view.status)) rollout.endedAt ??= Date.now();
    else rollout.endedAt = undefined;
    const paused = view.status === 'paused' && !rollout.pausedByError;
    if (paused || tty) rollout.groups = await mgmt.rolloutGroups(rollout.id);
    if (paused) rollout.pausedByError = (rollout.groups ?? []).some((g) => g.status === 'error');
  };
  /** When the server answered again after a `run` step or an outage the Management calls saw. */
  let stepBackAt: number | undefined;
  const serverBackAt = (): number | undefined => {
    const seen = mgmt?.outages.backAt;
    return seen === undefined ? stepBackAt : stepBackAt === undefined ? seen : Math.max(seen, stepBackAt);
  };
  const observation = (): Observation => ({
    now: Date.now(), counters: stats.counters, errorsByStatus: stats.errorsByStatus,
    devicesDone: fleet.byState().done, ...(serverBackAt() === undefined ? {} : { serverBackAt: serverBackAt() }),
    ...(rollout ? {
      rollout: {
        status: rollout.view?.status ?? 'unknown', startedAt: rollout.startedAt, seen: rollout.seen, pausedByError: rollout.pausedByError,
      },
    } : {}),
    targets: async (status, group) => {
      const gs = group === undefined ? fleet.groups : fleet.groups.filter((g) => g.spec.name === group);
      const f = runFilter(gs);
      const devices = gs.reduce((n, g) => n + g.spec.count, 0);
      if (!mgmt) return { devices, found: 0, notIn: devices };
      // in sync means with this run's release installed, pending with it assigned (when the run made a set);
      // a failed update leaves the assignment where it was, so `error` is judged by the status alone
      const wanted = { in_sync: 'installedds', pending: 'assignedds' }[status as 'in_sync' | 'pending'] as string | undefined;
      const set = release === undefined || wanted === undefined || installs === false ? '' : `,${wanted}.version!=${release}`;
      return { devices, found: await mgmt.countTargets(f), notIn: await mgmt.countTargets(`${f};(updateStatus!=${status}${set})`) };
    },
  });
  /** Judges the open expectations; true when every eventual one is decided. */
  const review = async (final: boolean): Promise<boolean> => {
    const obs = observation();
    let open = false;
    for (const [i, e] of s.expect.entries()) {
      const prev = verdicts.get(i);
      // decided checks stay decided, except that the final review re-reads failed ones for their final figures
      if (prev && (prev.state === 'pass' || (prev.state === 'fail' && !final))) continue;
      let v: Verdict;
      try {
        v = await judge(e, obs, final);
      } catch (err) {
        // the server is away (a restart the scenario runs): the check stays as it was, and is read again
        if (!(err instanceof UnreachableError) || final) throw err;
        v = prev ?? { state: 'open', expected: e.text, seen: 'the server did not answer' };
      }
      verdicts.set(i, v);
      if (v.state === 'open' && isEventual(e)) open = true;
    }
    return !open && s.expect.some(isEventual);
  };
  /** Whether `cond` holds; false while the server does not answer (its outage is counted by Mgmt). */
  const holds = async (cond: () => boolean | Promise<boolean>): Promise<boolean> => {
    try {
      return await cond();
    } catch (e) {
      if (e instanceof UnreachableError) return false;
      throw e;
    }
  };
  /** Throws when the server refused the fleet (no such tenant): nothing the run waits for will come. */
  const refused = (): false => {
    if (fleet.refusal !== undefined) throw new RefusedError(fleet.refusal);
    return false;
  };
  const until = async (what: string, timeoutMs: number, cond: () => boolean | Promise<boolean>): Promise<void> => {
    const end = Date.now() + timeoutMs;
    while (!(await holds(cond))) {
      if (over()) throw new StepError(`run time over while waiting for ${what}`);
      if (Date.now() > end) throw new StepError(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await sleep(200);
    }
  };

  const runStep = async (step: Step): Promise<void> => {
    if (!mgmt) return;
    const idsOf = (names: readonly string[] | undefined): string[] =>
      fleet.devices.filter((d) => !names || names.includes(d.g.spec.name)).map((d) => d.controllerId);
    if ('createDistributionSet' in step) {
      const c = step.createDistributionSet;
      release = c.version ?? fleet.runId;
      previousDsId = dsId;
      dsId = await mgmt.createDistributionSet({ ...c, version: release });
    } else if ('assign' in step) {
      const { groups, ...options } = step.assign;
      installs = installs === true || options.type !== 'downloadonly';
      await mgmt.assign(dsId!, idsOf(groups), options);
    } else if ('createRollout' in step) {
      const c = step.createRollout;
      const gs = c.groups ? fleet.groups.filter((g) => c.groups!.includes(g.spec.name)) : fleet.groups;
      const body: Record<string, unknown> = { name: `${s.name}-${fleet.runId}`, distributionSetId: dsId, targetFilterQuery: runFilter(gs), ...c.body };
      if (c.rollbackToPrevious) body['abort'] = { ...(body['abort'] as Record<string, unknown> | undefined), rollbackTo: previousDsId };
      installs = installs === true || c.body['type'] !== 'downloadonly';
      rollout = { id: await mgmt.createRollout(body), seen: new Map(), pausedByError: false };
      await refreshRollout();
      if (c.start) await startRollout(rollout);
    } else if ('rollout' in step) {
      if (step.rollout === 'start') await startRollout(rollout!);
      else await mgmt.rolloutAction(rollout!.id, step.rollout);
      await refreshRollout();
    } else if ('waitRollout' in step) {
      const w = step.waitRollout;
      await until(`rollout ${w.status}`, w.timeoutSeconds * 1000, async () => {
        await refreshRollout();
        return rollout!.seen.has(w.status);
      });
    } else if ('waitUpdates' in step) {
      const w = step.waitUpdates;
      await until(`${w.atLeast} updates`, w.timeoutSeconds * 1000, () => stats.counters.updates >= w.atLeast);
    } else if ('run' in step) {
      await runCommand(step.run.command, step.run.timeoutSeconds * 1000, log);
      // a command that restarts the server: wait until it answers again, and note when
      const end = Date.now() + step.run.timeoutSeconds * 1000;
      const probe = (): Promise<number> => mgmt.call('GET', '/rest/v1/userinfo', undefined, undefined, 0).then((r) => r.status);
      await until('the server to answer after the command', Math.max(0, end - Date.now()), async () => (await probe()) < 500);
      stepBackAt = Date.now();
    } else await sleep(step.sleep * 1000);
  };
  const startRollout = async (r: RolloutState): Promise<void> => {
    // a new rollout is CREATING until the server has filled its groups
    await until('the rollout to be ready', 60_000, async () => { await refreshRollout(); return r.view?.status !== 'creating'; });
    await mgmt!.rolloutAction(r.id, 'start');
    r.startedAt = Date.now();
  };

  try {
    if (mgmt) {
      await mgmt.check(s.connectAttempts);
      // minPollingTime first: the server checks pollingTime against the minimum in force
      const config = Object.entries(s.tenantConfig).sort(([a], [b]) => Number(b === 'minPollingTime') - Number(a === 'minPollingTime'));
      for (const [key, value] of config) await mgmt.setConfig(key, value);
      await mgmt.enableAuth(fleet.groups, s.fleet.auth);
      await mgmt.provisionTargets(fleet.groups, s.fleet.auth);
    } else {
      const { origin, prefix } = serverBase(s.server);
      await reach(s.server, s.connectAttempts, log, async () => (await request(`${origin}${prefix}/`)).statusCode);
    }
    phase('registering');
    display?.start();
    fleet.start(s.rampSeconds * 1000);
    o.observe?.(stats, fleet);
    if (s.steps.length > 0) {
      const limit = Math.max(60_000, s.rampSeconds * 1000 + 60_000);
      const errors = (): string => Object.entries(stats.errorsByStatus).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
      await until(`all ${fleet.size} devices to register`, limit, () => refused() || fleet.registered >= fleet.size)
        .catch((e: Error) => { throw new StepError(`${e.message} (${fleet.registered} did; device errors: ${errors()})`); });
    }
    for (const [i, step] of s.steps.entries()) {
      phase(`step ${i + 1} ${Object.keys(step)[0]}`);
      await runStep(step);
    }
    phase('running');
    let lastRollout = 0;
    for (;;) {
      if (over() || refused()) break;
      if (rollout && Date.now() - lastRollout >= 1000) {
        await holds(async () => { await refreshRollout(); return true; });
        lastRollout = Date.now();
      }
      if (await review(false)) break;
      await sleep(250);
    }
  } catch (e) {
    // whatever stopped the run, it ends with its report and an exit code, never a stack trace
    exitCode = e instanceof AdminAuthError || e instanceof RefusedError ? 2 : 1;
    const known = [AdminAuthError, RefusedError, UnreachableError, MgmtError, StepError, CommandError].some((k) => e instanceof k);
    error = known ? (e as Error).message : `unexpected: ${e instanceof Error ? e.message : String(e)}`;
    log(error);
  } finally {
    phase('stopping');
    await fleet.stop();
    display?.stop();
  }
  if (runTenant !== undefined) await endRunTenant(runTenant, s.keepTenant, o.quiet === true ? undefined : out, log);
  else if (mgmt && !s.keepTenantConfig) {
    try {
      const keys = await mgmt.restoreConfig();
      if (keys.length > 0 && !o.quiet) out.write(`tenant configuration restored: ${keys.join(', ')}\n`);
    } catch (e) { log(`restoring the tenant configuration failed: ${(e as Error).message}`); }
  }
  let results: ExpectationResult[] = [];
  // expectations are judged when the fleet ran (a step that failed still leaves its figures to judge)
  if (error === undefined || phases.some((p) => p.name === 'registering')) {
    try {
      await refreshRollout();
      await review(true);
    } catch (e) { log(`after the run: ${(e as Error).message}`); }
    results = s.expect.map((e, i) => {
      const v = verdicts.get(i) ?? { state: 'fail', expected: e.text, seen: 'not checked' };
      return { text: e.text, passed: v.state === 'pass', expected: v.expected, seen: v.seen };
    });
    for (const r of results) if (!r.passed) log(`expectation failed: ${r.text}: expected ${r.expected}, seen ${r.seen}`);
    if (results.some((r) => !r.passed)) exitCode = Math.max(exitCode, 1);
  }
  await http.close();
  const report = buildReport({
    scenario: s.name, runId: fleet.runId, server: s.server, tenant: s.tenant, devices: fleet.size, stats, exitCode,
    seconds: (Date.now() - stats.startedAt) / 1000,
    phases,
    devicesByState: fleet.byState(),
    ...(rollout ? { rollout: {
      id: rollout.id, status: rollout.view?.status ?? 'unknown', totalTargetsPerStatus: rollout.view?.totalTargetsPerStatus,
      ...(rollout.startedAt !== undefined
        ? { runSeconds: Math.round(((rollout.endedAt ?? Date.now()) - rollout.startedAt) / 100) / 10 } : {}),
    } } : {}),
    expectations: results,
  });
  // bad input (credentials, an unknown tenant): the message says it all, a table of nothing would not
  if (!o.quiet && exitCode !== 2) out.write(`${formatReport(report)}\n`);
  if (o.reportFile) writeFileSync(o.reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return { exitCode, report, ...(error !== undefined ? { error } : {}) };
}

/** Deletes the run's tenant (its data goes with it), or says how to reach it when it is kept. */
async function endRunTenant(
  t: RunTenant, keep: boolean, out: NodeJS.WritableStream | undefined, log: (line: string) => void,
): Promise<void> {
  if (keep) {
    out?.write(`tenant ${t.name} kept; its Management credentials: ${t.credentials}\n`);
    return;
  }
  try {
    await t.remove();
    out?.write(`tenant ${t.name} deleted\n`);
  } catch (e) { log(`deleting the run's tenant ${t.name} failed: ${(e as Error).message}`); }
}
