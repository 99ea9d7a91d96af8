/**
 * Scenario files (YAML) describing a simulation run, validated with zod so a typo names the field
 * instead of silently running with defaults.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const probability = z.number().min(0).max(1);

export const scenarioSchema = z.object({
  server: z.string().url().default('http://127.0.0.1:8080'),
  tenant: z.string().min(1).max(64).default('DEFAULT'),
  devices: z.object({
    count: z.number().int().min(1).max(1_000_000),
    prefix: z.string().min(1).max(200).default('sim-'),
    auth: z.discriminatedUnion('mode', [
      z.object({ mode: z.literal('anonymous') }),
      z.object({ mode: z.literal('gateway'), token: z.string().min(1) }),
      // Target tokens are per device: the CLI creates the targets with `<token>-<controllerId>` as their token.
      z.object({ mode: z.literal('target'), token: z.string().min(1) }),
    ]),
  }).strict(),
  /** Management credentials `user:password`; when given, the run first configures the tenant for the auth mode. */
  admin: z.string().regex(/^[^:]+:.*$/, 'expected user:password').optional(),
  /**
   * Tenant configuration set before the run (needs `admin`), in order. `minPollingTime: '00:00:00'`
   * lifts the server's per-device poll pacing, which otherwise throttles scaled-down polling with 429.
   */
  tenantConfig: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  timeScale: z.number().positive().max(10).default(0.001),
  minSleepMs: z.number().int().min(1).max(3_600_000).default(50),
  maxSleepMs: z.number().int().min(1).max(86_400_000).default(60_000),
  durationSeconds: z.number().positive().max(7 * 24 * 3600),
  concurrency: z.number().int().min(1).max(10_000).default(32),
  failureRate: probability.default(0),
  denyRate: probability.default(0),
  rangeChunkBytes: z.number().int().min(0).default(0),
  attributes: z.record(z.string(), z.string().max(128)).default({}),
  /** Exit non-zero when more than this share of requests failed. */
  maxErrorRate: probability.default(0.01),
}).strict();

export type Scenario = z.infer<typeof scenarioSchema>;

export class ScenarioError extends Error {}

export function parseScenario(text: string, source = 'scenario'): Scenario {
  let raw: unknown;
  try { raw = parse(text); } catch (e) { throw new ScenarioError(`${source}: invalid YAML: ${(e as Error).message}`); }
  const r = scenarioSchema.safeParse(raw ?? {});
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ScenarioError(`${source}: ${problems.join('; ')}`);
  }
  return r.data;
}

export function loadScenario(path: string): Scenario {
  return parseScenario(readFileSync(path, 'utf8'), path);
}
