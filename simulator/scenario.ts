/**
 * Scenario files (YAML) describing a simulation run, validated with zod before anything runs: an
 * unknown key or a wrong type is named with its path (`fleet.groups.0.behaviour.outcome.sucess: ...`).
 *
 * A scenario has a fleet (device groups, each with a count, an id pattern, attributes and a behaviour),
 * steps driven over the Management API (create a distribution set, assign it, create and drive a
 * rollout) and expectations that decide the exit code.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseExpectation, type Expectation } from './expectations.js';
import { describeIssues, keysOf } from './problems.js';

const probability = z.number().min(0).max(1);
const weight = z.number().min(0);
const ms = z.number().int().min(0).max(86_400_000);

/** A mix of outcomes by relative weight (`{ success: 9, failure: 1 }` = 90 % / 10 %). */
function mix<K extends string>(...keys: readonly [K, ...K[]]) {
  const shape = Object.fromEntries(keys.map((k) => [k, weight.describe(`weight of ${k}`).optional()])) as Record<K, z.ZodOptional<typeof weight>>;
  const positive = (m: object): boolean => Object.values(m as Record<string, number | undefined>).some((v) => (v ?? 0) > 0);
  return z.object(shape).strict().refine(positive, 'at least one weight must be above 0');
}

const installTime = z.union([
  z.number().min(0),
  z.object({ min: z.number().min(0), max: z.number().min(0) }).strict().refine((r) => r.max >= r.min, 'max must be >= min'),
  z.object({ mean: z.number().min(0), sd: z.number().min(0) }).strict(),
]);

export const behaviourSchema = z.object({
  poll: z.object({
    jitter: probability.describe('share of the interval added or taken at random'),
    minMs: ms.describe('shortest interval, ms'), maxMs: ms.describe('longest interval, ms'),
  }).partial().strict().describe("poll interval: the server's `config.polling.sleep` times timeScale, +/- jitter, clamped"),
  download: z.object({
    mode: z.enum(['whole', 'range', 'skip'])
      .describe('`whole`: one GET with sha1 check; `range`: Range requests of pieceBytes, resumed after a cut; `skip`: no download'),
    pieceBytes: z.number().int().min(1).describe('bytes per Range request'),
  }).partial().strict().describe('how artifacts are downloaded'),
  installSeconds: installTime.describe('install time in device seconds (times timeScale): a constant, uniform `{min,max}` or normal `{mean,sd}`'),
  outcome: mix('success', 'failure', 'noAnswer', 'fallBack')
    .describe('how installs end, by weight (`{ success: 9, failure: 1 }` = 90 % / 10 %); `fallBack`: success reported, then failure (A/B fallback) before the next poll'),
  confirmation: mix('confirm', 'deny', 'autoConfirm').describe('answer to an action waiting for confirmation, by weight'),
  cancel: mix('accept', 'reject').describe('answer to a cancel, by weight'),
  faults: z.object({
    drop: probability.describe('share of requests dropped (downloads cut mid-body)'),
    delay: probability.describe('share of requests delayed'), delayMs: ms.describe('delay, ms'),
  }).partial().strict().describe('network faults the devices inject'),
}).partial().strict();
export type BehaviourInput = z.infer<typeof behaviourSchema>;

export const authSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('anonymous').describe('which of the four') }).strict(),
  z.object({ mode: z.literal('gateway'), token: z.string().min(1).describe('`gateway`: the gateway token') }).strict(),
  z.object({
    mode: z.literal('target'),
    tokenPrefix: z.string().min(1).default('sim').describe('`target`: each device\'s token is `<tokenPrefix>-<controllerId>`'),
    provision: z.boolean().default(true)
      .describe('`target`: create the targets with their tokens first over the Management API, 500 per request'),
  }).strict(),
  z.object({
    mode: z.literal('certificate'),
    issuerHash: z.string().min(1).describe('`certificate`: the issuer hash a TLS proxy forwards (`X-Ssl-Issuer-Hash-1`; `X-Ssl-Client-Cn` is the controller id)'),
  }).strict(),
]).describe('how devices authenticate: `anonymous`, `gateway`, `target` (a token per device), `certificate` (the headers a TLS proxy forwards)');
export type AuthInput = z.infer<typeof authSchema>;

const groupSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - (1-40)').describe('group name: letters, digits, _ and - (1-40)'),
  count: z.number().int().min(0).max(1_000_000).describe('devices in the group'),
  idPattern: z.string()
    .regex(/^[A-Za-z0-9_.:-]*\{n(:\d{1,2})?\}[A-Za-z0-9_.:-]*$/, 'needs exactly one {n} or {n:W} and id characters').optional()
    .describe('controller ids: `{n}` is the device number, `{n:6}` zero-padded to 6 digits; `<name>-{n:6}` when absent'),
  attributes: z.record(z.string().max(128), z.union([z.string().max(128), z.array(z.string().max(128)).min(1)])).default({})
    .describe('attributes the devices report: a value, or a list picked from per device'),
  auth: authSchema.optional().describe("the group's own auth instead of the fleet's"),
  behaviour: behaviourSchema.optional().describe("the group's behaviour, over the fleet's key by key"),
}).strict();

const groupsRef = z.array(z.string()).min(1).optional();
const actionType = z.enum(['soft', 'forced', 'timeforced', 'downloadonly']);
const rolloutStates = z.enum(['ready', 'running', 'paused', 'finished', 'stopped']);

const stepSchema = z.union([
  z.object({ createDistributionSet: z.object({
    name: z.string().min(1).default('sim-release').describe('set name'),
    version: z.string().min(1).optional().describe("set version; the run's id when absent"),
    artifacts: z.number().int().min(1).max(10).default(1).describe('artifacts of random content'),
    artifactBytes: z.number().int().min(1).max(1 << 30).default(65_536).describe('bytes per artifact'),
  }).strict().describe('creates a distribution set: a module of type os with random artifacts') }).strict(),
  z.object({ assign: z.object({
    groups: groupsRef.describe('fleet groups (all when absent)'), type: actionType.optional().describe('action type'),
    confirmationRequired: z.boolean().optional().describe('the devices must confirm first'),
    maintenanceWindow: z.object({
      schedule: z.string().describe('cron expression of the openings'), duration: z.string().describe('how long each is open, HH:mm:ss'),
      timezone: z.string().describe('offset the schedule is in, +HH:mm'),
    }).strict().optional().describe('the devices install only while it is open'),
  }).strict().describe("assigns the set to the groups' targets") }).strict(),
  z.object({ createRollout: z.object({
    groups: groupsRef.describe('fleet groups (all when absent)'),
    start: z.boolean().default(true).describe('start it once it is ready'),
    rollbackToPrevious: z.boolean().default(false)
      .describe("sets the body's abort.rollbackTo to the set of the createDistributionSet step before the last one"),
    body: z.record(z.string(), z.unknown()).default({})
      .describe('any body `POST /rest/v1/rollouts` accepts; name, distributionSetId and targetFilterQuery filled in'),
  }).strict().describe("creates a rollout of the set over the groups' targets") }).strict(),
  z.object({ rollout: z.enum(['start', 'pause', 'resume', 'stop']).describe("acts on the run's rollout") }).strict(),
  z.object({ waitRollout: z.object({
    status: rolloutStates.describe('the state to wait for'),
    timeoutSeconds: z.number().positive().default(120).describe('fails the run after this'),
  }).strict().describe('waits until the rollout reaches a state') }).strict(),
  z.object({
    waitUpdates: z.object({
      atLeast: z.number().int().min(0).describe('updates finished on the devices (success or failure)'),
      timeoutSeconds: z.number().positive().default(120).describe('fails the run after this'),
    }).strict().describe('waits until this many updates finished'),
  }).strict(),
  z.object({ sleep: z.number().min(0).max(86_400).describe('waits this many seconds') }).strict(),
  z.object({
    run: z.object({
      command: z.string().min(1).describe('shell command (restart the server, cut a link); a non-zero exit fails the run'),
      timeoutSeconds: z.number().positive().max(3600).default(120).describe('for the command and for the server to answer again'),
    }).strict().describe('runs a command, then waits until the server answers again and notes when'),
  }).strict(),
]);
export type Step = z.infer<typeof stepSchema>;

export const scenarioSchema = z.object({
  name: z.string().default('scenario').describe('names the run, its rollout (`<name>-<run id>`) and its report'),
  server: z.string().refine(isServerUrl, { message: 'expected http://host:port or https://host:port, optionally with a path prefix' })
    .default('http://127.0.0.1:8080').describe('http(s)://host:port, with a path prefix when the server runs under one'),
  tenant: z.string().min(1).max(64).default('DEFAULT').describe('the tenant the devices poll'),
  admin: z.string().regex(/^[^:]+:.*$/, 'expected user:password').optional()
    .describe('Management credentials `user:password`: needed for tenantConfig, provisioning, steps and server-side expectations'),
  tenantConfig: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({})
    .describe('tenant configuration written first (`minPollingTime` before `pollingTime`), put back as it was at the end'),
  keepTenantConfig: z.boolean().default(false).describe('leave the tenant configuration the run wrote in place'),
  tenantPerRun: z.boolean().default(false)
    .describe('run in a tenant of its own, `SIM-<run id>`, created first and deleted at the end (admin needs SYSTEM_ADMIN); `tenant` is not used'),
  keepTenant: z.boolean().default(false).describe('with tenantPerRun: leave the run\'s tenant in place and print its credentials'),
  timeScale: z.number().positive().max(10).default(1)
    .describe('multiplies device time: 0.01 turns a 00:05:00 polling sleep into 3 s and a 60 s install into 0.6 s'),
  durationSeconds: z.number().positive().max(7 * 24 * 3600)
    .describe('longest run; it ends earlier once every expectation is decided'),
  rampSeconds: z.number().min(0).max(86_400).default(1).describe('first polls spread over this many seconds'),
  connections: z.number().int().min(1).max(10_000).default(64).describe('HTTP keep-alive connections to the server; further requests wait for one, a device\'s follow-up requests (deploymentBase, feedback, downloads) before new polls'),
  connectAttempts: z.number().int().min(1).max(20).default(5)
    .describe('attempts to reach the server before giving up (backoff from 250 ms)'),
  fleet: z.object({
    auth: authSchema,
    behaviour: behaviourSchema.optional().describe("every group's behaviour (a group's own overrides it key by key)"),
    groups: z.array(groupSchema).min(1).describe('device groups'),
  }).strict().describe('the virtual devices'),
  steps: z.array(stepSchema).default([]).describe('driven in order over the Management API, each a one-key object'),
  expect: z.array(z.string().transform((text, ctx): Expectation => {
    const e = parseExpectation(text);
    if (typeof e === 'string') { ctx.addIssue({ code: 'custom', message: e }); return z.NEVER; }
    return e;
  })).default([]).describe('checks that decide the exit code, one line of English each (see the list below)'),
}).strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type Group = Scenario['fleet']['groups'][number];

export class ScenarioError extends Error {}

const SCENARIO_KEYS = keysOf(scenarioSchema);

function isServerUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const u = new URL(text);
    return u.hostname !== '' && u.search === '' && u.hash === '' && u.username === '';
  } catch {
    return false;
  }
}

/** The server's origin and the path prefix it runs under ('' or '/hawkbit', no trailing slash). */
export function serverBase(server: string): { readonly origin: string; readonly prefix: string } {
  const u = new URL(server);
  return { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
}

export function validateScenario(raw: unknown, source = 'scenario'): Scenario {
  const r = scenarioSchema.safeParse(raw ?? {}, { reportInput: true });
  if (!r.success) throw new ScenarioError(`${source}: ${describeIssues(r.error.issues, SCENARIO_KEYS).join('; ')}`);
  const names = new Set<string>();
  for (const g of r.data.fleet.groups) {
    if (names.has(g.name)) throw new ScenarioError(`${source}: fleet.groups: group name '${g.name}' used twice`);
    names.add(g.name);
  }
  let ds = false;
  let sets = 0;
  let rollout = false;
  for (const [i, s] of r.data.steps.entries()) {
    const fail = (problem: string): never => { throw new ScenarioError(`${source}: steps[${i + 1}]: ${problem}`); };
    if (('assign' in s || 'createRollout' in s) && !ds) fail('needs a createDistributionSet step before it');
    if (('rollout' in s || 'waitRollout' in s) && !rollout) fail('needs a createRollout step before it');
    if ('createRollout' in s && s.createRollout.rollbackToPrevious && sets < 2) fail('rollbackToPrevious needs two createDistributionSet steps before it');
    if ('createDistributionSet' in s) sets++;
    ds ||= 'createDistributionSet' in s;
    rollout ||= 'createRollout' in s;
    const groups = 'assign' in s ? s.assign.groups : 'createRollout' in s ? s.createRollout.groups : undefined;
    const unknown = groups?.find((g) => !names.has(g));
    if (unknown !== undefined) throw new ScenarioError(`${source}: steps[${i + 1}]: no fleet group named '${unknown}'`);
  }
  for (const [i, e] of r.data.expect.entries()) {
    if (e.kind === 'allDevices' && e.group !== undefined && !names.has(e.group)) {
      throw new ScenarioError(`${source}: expect[${i + 1}]: no fleet group named '${e.group}'`);
    }
  }
  const managed = r.data.expect.some((e) => e.kind === 'rollout' || e.kind === 'errorThreshold' || e.kind === 'allDevices');
  if (!r.data.admin && (r.data.steps.length > 0 || Object.keys(r.data.tenantConfig).length > 0 || managed || r.data.tenantPerRun)) {
    throw new ScenarioError(`${source}: admin: steps, tenantConfig, tenantPerRun and server-side expectations need Management credentials `
      + '(admin: user:password or --admin)');
  }
  return r.data;
}

export function parseScenario(text: string, source = 'scenario'): unknown {
  try { return parse(text) as unknown; } catch (e) { throw new ScenarioError(`${source}: invalid YAML: ${(e as Error).message}`); }
}

export function loadScenario(path: string): unknown {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { throw new ScenarioError(`${path}: cannot read: ${(e as Error).message}`); }
  return parseScenario(text, path);
}

export interface Overrides {
  readonly url?: string;
  readonly tenant?: string;
  readonly devices?: number;
  readonly duration?: number;
  readonly admin?: string;
  readonly tenantPerRun?: boolean;
  readonly keepTenant?: boolean;
}

/**
 * The scenario with command-line overrides applied (before validation, so an override is checked
 * like the file). `devices` rescales the groups' counts to that total, keeping their proportions.
 */
export function withOverrides(raw: unknown, o: Overrides): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const s: Record<string, unknown> = { ...raw as Record<string, unknown> };
  if (o.url !== undefined) s['server'] = o.url;
  if (o.tenant !== undefined) s['tenant'] = o.tenant;
  if (o.duration !== undefined) s['durationSeconds'] = o.duration;
  if (o.admin !== undefined) s['admin'] = o.admin;
  if (o.tenantPerRun !== undefined) s['tenantPerRun'] = o.tenantPerRun;
  if (o.keepTenant !== undefined) s['keepTenant'] = o.keepTenant;
  const fleet = s['fleet'] as { groups?: unknown } | undefined;
  if (o.devices !== undefined && fleet && Array.isArray(fleet.groups)) {
    const groups = fleet.groups as { count?: unknown }[];
    const counts = groups.map((g) => (typeof g.count === 'number' ? g.count : 0));
    const scaled = rescale(counts, o.devices);
    s['fleet'] = { ...fleet, groups: groups.map((g, i) => ({ ...g, count: scaled[i] })) };
  }
  return s;
}

/** Integer counts proportional to `counts` summing to `total` (largest remainder). */
export function rescale(counts: readonly number[], total: number): number[] {
  const sum = counts.reduce((a, b) => a + b, 0) || counts.length;
  const exact = counts.map((c) => ((sum === counts.length && counts.every((x) => x === 0) ? 1 : c) * total) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) { if (left <= 0) break; out[i]! += 1; left--; }
  return out;
}
