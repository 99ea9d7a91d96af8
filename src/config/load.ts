/**
 * Reads config.yaml, applies PEREGRINE_* environment overrides, validates, freezes.
 * Errors name the file (or variable), the key path and the problem, one line each:
 *   config.yaml: server.port: expected a number from 0 to 65535, got "abc"
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { configSchema, type Config } from './schema.js';
import { formatPath, issueMessage } from './zod-messages.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Environment variable -> key path it overrides. Numbers are converted when they look like numbers. */
const ENV_OVERRIDES: readonly (readonly [string, readonly string[]])[] = [
  ['PEREGRINE_PORT', ['server', 'port']],
  ['PEREGRINE_HOST', ['server', 'host']],
  ['PEREGRINE_WORKERS', ['server', 'workers']],
  ['PEREGRINE_STORE', ['store', 'kind']],
  ['PEREGRINE_REDIS_URL', ['store', 'redisUrl']],
  ['PEREGRINE_REDIS_CLUSTER', ['store', 'redisCluster']],
  ['PEREGRINE_DATA_DIR', ['dataDir']],
  ['PEREGRINE_LOG_LEVEL', ['log', 'level']],
];

export interface LoadOptions {
  /** Path of the YAML file. */
  readonly file: string;
  /** When false, a missing file means built-in defaults (the CLI without --config). */
  readonly required?: boolean;
  readonly env?: Env;
  /** Command-line options, applied after the environment: e.g. `--workers` for server.workers. */
  readonly flags?: readonly Flag[];
}

/** A command-line option that sets one key; errors name the option. Numbers convert as for the environment. */
export interface Flag {
  readonly name: string;
  readonly path: readonly string[];
  readonly value: string | undefined;
}

export function loadConfig(options: LoadOptions): Config {
  const { file, required = true, env = process.env, flags = [] } = options;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return parseConfig({}, { source: 'built-in defaults', env, flags });
    throw new ConfigError(`${file}: cannot read the configuration file (${code ?? String(err)})`);
  }
  return parseConfig(parseYaml(text, file), { source: file, env, flags });
}

export function parseYaml(text: string, source: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first !== undefined) throw new ConfigError(`${source}: ${first.message.split('\n')[0] ?? 'invalid YAML'}`);
  return doc.toJS() ?? {};
}

/** Validates an already parsed document (tests and the test server start here). */
export function parseConfig(raw: unknown, options: { source?: string; env?: Env; flags?: readonly Flag[] } = {}): Config {
  const { source = 'config', env = {}, flags = [] } = options;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${source}: expected a mapping of keys at the top level`);
  }
  const overridden = new Map<string, string>();
  const doc = structuredClone(raw) as Record<string, unknown>;
  const overrides = [...ENV_OVERRIDES.map(([name, path]) => ({ name, path, value: env[name] })), ...flags];
  for (const { name, path, value } of overrides) {
    if (value === undefined || value === '') continue;
    setPath(doc, path, /^-?\d+$/.test(value) ? Number(value) : value);
    overridden.set(path.join('.'), name);
  }
  const result = configSchema.safeParse(doc, { error: issueMessage });
  if (!result.success) {
    const lines = result.error.issues.map((iss) => {
      const key = formatPath('', iss.path);
      // an override may set a list: its items' issues are reported under the variable too
      const path = iss.path.join('.');
      const from = [...overridden].find(([key]) => path === key || path.startsWith(`${key}.`))?.[1];
      return from === undefined ? `${source}: ${key}: ${iss.message}` : `${from} (${key}): ${iss.message}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  return deepFreeze(result.data);
}

function setPath(doc: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = doc;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
