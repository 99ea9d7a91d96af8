/**
 * A device group resolved from the scenario: its id pattern, attributes, authentication and behaviour
 * (its own over the fleet's over the defaults), shared by the group's devices (device.ts).
 */
import type { Faults, SimHttp } from './http.js';
import { serverBase, type AuthInput, type BehaviourInput, type Group, type Scenario } from './scenario.js';
import type { Stats } from './stats.js';

/** The attribute every device of a run reports with the run's id (Fleet.runId). */
export const RUN_ATTRIBUTE = 'sim_run';

export interface Behaviour {
  readonly poll: { readonly jitter: number; readonly minMs: number; readonly maxMs: number };
  readonly download: { readonly mode: 'whole' | 'range' | 'skip'; readonly pieceBytes: number };
  readonly installSeconds: NonNullable<BehaviourInput['installSeconds']>;
  readonly outcome: NonNullable<BehaviourInput['outcome']>;
  readonly confirmation: NonNullable<BehaviourInput['confirmation']>;
  readonly cancel: NonNullable<BehaviourInput['cancel']>;
}

const DEFAULTS: Behaviour = {
  poll: { jitter: 0.1, minMs: 50, maxMs: 86_400_000 },
  download: { mode: 'whole', pieceBytes: 65_536 },
  installSeconds: 0,
  outcome: { success: 1 },
  confirmation: { confirm: 1 },
  cancel: { accept: 1 },
};

/** The group's behaviour: its own keys over the fleet's over the defaults (objects merged key by key). */
export function resolveBehaviour(fleet: BehaviourInput | undefined, group: BehaviourInput | undefined): Behaviour & { faults: Faults } {
  const f = fleet ?? {};
  const g = group ?? {};
  return {
    poll: { ...DEFAULTS.poll, ...f.poll, ...g.poll },
    download: { ...DEFAULTS.download, ...f.download, ...g.download },
    installSeconds: g.installSeconds ?? f.installSeconds ?? DEFAULTS.installSeconds,
    outcome: g.outcome ?? f.outcome ?? DEFAULTS.outcome,
    confirmation: g.confirmation ?? f.confirmation ?? DEFAULTS.confirmation,
    cancel: g.cancel ?? f.cancel ?? DEFAULTS.cancel,
    faults: { drop: 0, delay: 0, delayMs: 0, ...f.faults, ...g.faults },
  };
}

type Mixes = Pick<Behaviour, 'outcome' | 'confirmation' | 'cancel'>;

/** What a group's devices see of their fleet (fleet.ts): the run's id, their registrations and moves between states, a refusal. */
export interface FleetOfGroup {
  readonly runId: string;
  registered: number;
  refusal: string | undefined;
  moved(from: number, to: number): void;
}

/** Everything the devices of one group share. */
export class GroupRuntime {
  readonly behaviour: Behaviour;
  readonly faults: Faults;
  readonly idOf: (n: number) => string;
  readonly authOf: (n: number) => Record<string, string>;
  private readonly base: string;
  private readonly cumulative: { [K in keyof Mixes]: readonly (readonly [string, number])[] };
  private readonly fixed: Record<string, string> = {};
  private readonly lists: (readonly [string, readonly string[]])[] = [];

  constructor(readonly fleet: FleetOfGroup, readonly spec: Group, s: Scenario, readonly http: SimHttp, readonly stats: Stats,
    readonly timeScale: number, readonly random: () => number) {
    const b = resolveBehaviour(s.fleet.behaviour, spec.behaviour);
    this.behaviour = b;
    this.faults = b.faults;
    this.idOf = idPattern(spec.idPattern ?? `${spec.name}-{n:6}`);
    this.authOf = authHeaders(spec.auth ?? s.fleet.auth, this.idOf);
    const { origin, prefix } = serverBase(s.server);
    this.base = `${origin}${prefix}/${encodeURIComponent(s.tenant)}/controller/v1/`;
    this.cumulative = { outcome: cumulate(b.outcome), confirmation: cumulate(b.confirmation), cancel: cumulate(b.cancel) };
    for (const [k, v] of Object.entries(spec.attributes)) {
      if (Array.isArray(v)) this.lists.push([k, v]); else this.fixed[k] = v;
    }
  }

  rootOf(n: number): string { return this.base + encodeURIComponent(this.idOf(n)); }

  /** Attributes of device n: fixed values, and list values picked by the device number (stable across runs). */
  attributesOf(n: number): Record<string, string> {
    // configData must not be empty (reference §2): a group without attributes reports its name
    const none = this.lists.length === 0 && Object.keys(this.fixed).length === 0;
    const out: Record<string, string> = none ? { 'sim.group': this.spec.name, [RUN_ATTRIBUTE]: this.fleet.runId } : { ...this.fixed, [RUN_ATTRIBUTE]: this.fleet.runId };
    this.lists.forEach(([k, list], i) => { out[k] = list[mix32(n * 31 + i) % list.length]!; });
    return out;
  }

  pick<K extends keyof Mixes>(kind: K): keyof Behaviour[K] {
    const c = this.cumulative[kind];
    const r = this.random() * c[c.length - 1]![1];
    return (c.find(([, upTo]) => r < upTo) ?? c[c.length - 1]!)[0] as keyof Behaviour[K];
  }

  /** One install time in real milliseconds. */
  installMs(): number {
    const t = this.behaviour.installSeconds;
    let s: number;
    if (typeof t === 'number') s = t;
    else if ('min' in t) s = t.min + this.random() * (t.max - t.min);
    else s = Math.max(0, t.mean + t.sd * gaussian(this.random));
    return s * 1000 * this.timeScale;
  }
}

function cumulate(weights: Readonly<Record<string, number | undefined>>): (readonly [string, number])[] {
  let sum = 0;
  return Object.entries(weights).filter(([, w]) => (w ?? 0) > 0).map(([k, w]) => [k, (sum += w ?? 0)] as const);
}

export function idPattern(pattern: string): (n: number) => string {
  const m = /^(.*)\{n(?::(\d+))?\}(.*)$/.exec(pattern);
  if (!m) throw new Error(`id pattern without {n}: ${pattern}`);
  const [, before = '', width, after = ''] = m;
  const w = width === undefined ? 0 : Number(width);
  return (n) => before + String(n).padStart(w, '0') + after;
}

/** The token a target-token device presents (the provisioning step gives each target this token). */
export function targetTokenOf(prefix: string, controllerId: string): string {
  return `${prefix}-${controllerId}`.slice(0, 128);
}

function authHeaders(auth: AuthInput, idOf: (n: number) => string): (n: number) => Record<string, string> {
  switch (auth.mode) {
    case 'anonymous': { const none = {}; return () => none; }
    case 'gateway': { const h = { authorization: `GatewayToken ${auth.token}` }; return () => h; }
    case 'target': return (n) => ({ authorization: `TargetToken ${targetTokenOf(auth.tokenPrefix, idOf(n))}` });
    case 'certificate': return (n) => ({ 'x-ssl-client-cn': idOf(n), 'x-ssl-issuer-hash-1': auth.issuerHash });
  }
}

function mix32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
