import { ACTION_STATUSES } from './action.js';
import { DEFAULT_MANAGEMENT_API, generationProblem, type ManagementApiGeneration } from './compat.js';
import { AppError } from './errors.js';

/**
 * Every tenant configuration key, typed and validated. Global defaults are the spec's (2.11) where
 * it lists one, else the reference's (§6); config.yaml `tenantDefaults` may override them system-wide.
 * @see spec 2.11; reference §6
 */
export type ConfigValue = boolean | number | string;

interface KeySpec {
  readonly type: 'boolean' | 'integer' | 'long' | 'duration' | 'string' | 'statusList';
  readonly default: ConfigValue;
  readonly describe: string;
  /** Extra check on a value of the right type; returns a problem or undefined. */
  readonly check?: (value: ConfigValue, all: DurationLookup) => string | undefined;
  /** A check of the value alone, applied to config.yaml seeds too (seedProblem). */
  readonly valid?: (value: ConfigValue) => string | undefined;
  /** Secret values are not shown to callers without the matching permission. */
  readonly secret?: boolean;
}

/** What a key's check may read of the other keys (declared apart to keep the key list non-circular). */
interface DurationLookup {
  durationMs(key: 'pollingTime' | 'minPollingTime'): number;
}

const HHMMSS = /^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$/;

/** "HH:MM:SS" to milliseconds, or undefined when malformed. */
export function parseDuration(value: string): number | undefined {
  if (!HHMMSS.test(value)) return undefined;
  const [h, m, s] = value.split(':').map(Number) as [number, number, number];
  return ((h * 60 + m) * 60 + s) * 1000;
}

export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/**
 * A token a device can send as `Authorization: GatewayToken <key>` (src/ddi/auth.ts takes one run
 * without whitespace): not blank, no whitespace or control characters (NUL, CR, LF).
 */
function sendableToken(value: ConfigValue): string | undefined {
  const key = String(value);
  if (key.trim() === '') return 'must not be blank (DELETE the key to unset it)';
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(key)) return 'must not contain whitespace or control characters (no device can send them in its Authorization header)';
  return undefined;
}

export const CONFIG_KEYS = {
  'rollout.approval.enabled': { type: 'boolean', default: false, describe: 'approval mode for rollouts' },
  'repository.actions.autoclose.enabled': { type: 'boolean', default: false, describe: 'close running actions when a new distribution set is assigned' },
  'authentication.gatewaytoken.enabled': { type: 'boolean', default: false, describe: 'gateway security token mode' },
  'authentication.gatewaytoken.key': { type: 'string', default: '', describe: 'the gateway token value', secret: true, valid: sendableToken },
  'authentication.targettoken.enabled': { type: 'boolean', default: false, describe: 'target security token mode' },
  'authentication.header.enabled': { type: 'boolean', default: true, describe: 'certificate via reverse proxy (authority header) mode' },
  'authentication.header.authority': { type: 'string', default: '', describe: 'comma-separated issuer hashes accepted from the reverse proxy' },
  'anonymous.download.enabled': { type: 'boolean', default: false, describe: 'anonymous artifact download' },
  'action.cleanup.enabled': { type: 'boolean', default: false, describe: 'automatic cleanup of deployment actions' },
  'action.cleanup.actionExpiry': {
    type: 'long', default: 2_592_000_000, describe: 'ms that must elapse before an action may be cleaned up (30 days)',
    check: (v: ConfigValue): string | undefined => (typeof v === 'number' && v < 0 ? 'must not be negative' : undefined),
  },
  'action.cleanup.actionStatus': { type: 'statusList', default: 'CANCELED,ERROR', describe: 'action statuses considered for cleanup' },
  'action.delete.allowed.statuses': { type: 'statusList', default: 'CANCELED,ERROR,FINISHED', describe: 'action statuses users may delete' },
  pollingTime: {
    type: 'duration', default: '12:00:00', describe: 'interval between two target polls',
    check: (v: ConfigValue, all: DurationLookup): string | undefined => ((parseDuration(String(v)) ?? 0) < all.durationMs('minPollingTime') ? 'must not be below minPollingTime' : undefined),
  },
  minPollingTime: {
    type: 'duration', default: '00:00:30', describe: 'smallest permitted poll interval',
    check: (v: ConfigValue, all: DurationLookup): string | undefined => ((parseDuration(String(v)) ?? 0) > all.durationMs('pollingTime') ? 'must not exceed pollingTime' : undefined),
  },
  pollingOverdueTime: { type: 'duration', default: '23:59:59', describe: 'period after which a non-polling target is overdue' },
  maintenanceWindowPollCount: {
    type: 'integer', default: 3, describe: 'polls between the last poll and the start of a maintenance window',
    check: (v: ConfigValue): string | undefined => (typeof v === 'number' && v < 1 ? 'must be at least 1' : undefined),
  },
  'multi.assignments.enabled': {
    type: 'boolean', default: false, describe: 'several distribution sets may be assigned to the same targets (cannot be switched off again)',
  },
  'user.confirmation.flow.enabled': { type: 'boolean', default: false, describe: 'actions wait for confirmation by the device' },
  'auto.assignment.approval.enabled': { type: 'boolean', default: false, describe: 'approval workflow for auto-assignments' },
  'implicit.lock.enabled': { type: 'boolean', default: true, describe: 'lock a distribution set and its modules when first assigned' },
  'batch.assignments.enabled': { type: 'boolean', default: false, describe: 'batch assignment messages (DMF only)' },
  'compat.managementApi': {
    type: 'string', default: DEFAULT_MANAGEMENT_API, describe: 'generation of the Management API wire form: "0.9" (the spec\'s) or "1.x" (src/domain/compat.ts)',
    valid: generationProblem,
  },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/**
 * `default.ds.type`: the id of the distribution set type a set created without `type` gets. Not a
 * key of the catalogue above but tenant metadata in hawkBit, shown and written beside the keys:
 * a number naming an existing type, handled first in a bulk write, never deleted (reference §3.14).
 */
export const DEFAULT_DS_TYPE = 'default.ds.type';
export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_KEYS, key);
}

export function keySpec(key: ConfigKey): KeySpec {
  return CONFIG_KEYS[key];
}

/** The tenant's Management API generation (`compat.managementApi`). */
export function managementApi(view: TenantConfigView): ManagementApiGeneration {
  return view.get('compat.managementApi') === '1.x' ? '1.x' : '0.9';
}

/** Read access to the effective values (tenant value, else global default). */
export interface TenantConfigView {
  get(key: ConfigKey): ConfigValue;
  bool(key: ConfigKey): boolean;
  durationMs(key: ConfigKey): number;
  number(key: ConfigKey): number;
}

export function viewOf(
  values: Readonly<Partial<Record<ConfigKey, ConfigValue>>>, defaults: Readonly<Record<ConfigKey, ConfigValue>>,
): TenantConfigView {
  const get = (key: ConfigKey): ConfigValue => values[key] ?? defaults[key];
  return {
    get,
    bool: (key) => get(key) === true,
    number: (key) => Number(get(key)),
    durationMs: (key) => parseDuration(String(get(key))) ?? 0,
  };
}

export function builtInDefaults(): Record<ConfigKey, ConfigValue> {
  return Object.fromEntries(CONFIG_KEY_NAMES.map((k) => [k, CONFIG_KEYS[k].default])) as Record<ConfigKey, ConfigValue>;
}

/**
 * Validates and normalises a value sent for a key (JSON scalar). Throws CONFIG_KEY_INVALID or
 * CONFIG_VALUE_INVALID naming the key and the problem.
 */
export function coerceValue(key: string, raw: unknown, current: TenantConfigView): ConfigValue {
  if (!isConfigKey(key)) throw new AppError('CONFIG_KEY_INVALID', `The given configuration key '${key}' does not exist.`);
  const spec: KeySpec = CONFIG_KEYS[key];
  // a secret's value is not echoed (error bodies may end up in logs)
  const got = spec.secret === true ? '' : `, got ${JSON.stringify(raw)}`;
  const bad = (problem: string): AppError =>
    new AppError('CONFIG_VALUE_INVALID', `The given configuration value for key '${key}' is invalid: ${problem}${got}`);
  let value: ConfigValue;
  switch (spec.type) {
    case 'boolean':
      if (typeof raw === 'boolean') value = raw;
      else if (raw === 'true' || raw === 'false') value = raw === 'true';
      else throw bad('expected a boolean');
      break;
    case 'integer':
    case 'long': {
      const n = typeof raw === 'string' && /^-?[0-9]+$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw bad('expected a whole number');
      if (spec.type === 'integer' && (n > 2_147_483_647 || n < -2_147_483_648)) throw bad('expected a 32-bit integer');
      value = n;
      break;
    }
    case 'duration':
      if (typeof raw !== 'string' || parseDuration(raw) === undefined) throw bad('expected a duration HH:MM:SS');
      value = raw;
      break;
    case 'string':
      if (typeof raw !== 'string') throw bad('expected a string');
      if (raw.length > 1024) throw bad('longer than 1024 characters');
      value = raw;
      break;
    case 'statusList': {
      if (typeof raw !== 'string') throw bad('expected a comma-separated list of action statuses');
      const items = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      const unknown = items.filter((s) => !(ACTION_STATUSES as readonly string[]).includes(s.toLowerCase()));
      if (unknown.length > 0) throw bad(`unknown action status ${unknown.join(', ')}`);
      value = items.map((s) => s.toUpperCase()).join(',');
      break;
    }
  }
  const problem = spec.valid?.(value) ?? spec.check?.(value, current);
  if (problem) throw bad(problem);
  if (key === 'multi.assignments.enabled' && value === false && current.bool(key)) {
    throw new AppError('CONFIG_CHANGE_NOT_ALLOWED', `The configuration key '${key}' cannot be disabled once it was enabled.`);
  }
  return value;
}

/** What is wrong with a config.yaml seed of a key by the key's own check of the value alone, or undefined. */
export function seedProblem(key: ConfigKey, value: ConfigValue): string | undefined {
  const spec: KeySpec = CONFIG_KEYS[key];
  return spec.valid?.(value);
}
