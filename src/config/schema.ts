/**
 * The shape of config.yaml (camelCase keys). Every key is optional and has the default written
 * here; config.yaml documents them all. Quotas and per-tenant configuration values pass through
 * untouched: the modules that own them validate them.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MANAGEMENT_API_GENERATIONS } from '../domain/compat.js';
import { TENANT_NAME, TENANT_NAME_EXPECTED, USERNAME, USERNAME_EXPECTED } from '../domain/ids.js';
import { QUOTA_DEFAULTS } from '../domain/quotas.js';
import { WEBHOOK_KINDS, webhookUrlProblem } from '../domain/webhook.js';
import { parseCidr } from './cidr.js';
import { isPermission } from './permissions.js';
import { isPasswordHash } from './password.js';
import { show } from './zod-messages.js';

const port = z
  .number({ error: (iss) => `expected a number from 0 to 65535, got ${show(iss.input)}` })
  .int()
  .min(0)
  .max(65535);

const positiveInt = z.number().int().min(1);

/** Every quota with its default; the schema is their one check. */
const quotaShape = Object.fromEntries(Object.entries(QUOTA_DEFAULTS).map(([k, v]) => [k, positiveInt.default(v)])) as {
  [K in keyof typeof QUOTA_DEFAULTS]: z.ZodDefault<typeof positiveInt>;
};

/** Far beyond the cores of any host this runs on; a typo like 100 or 1000 is refused rather than spawning threads. */
const MAX_WORKERS = 64;
const workersMessage = (iss: { input: unknown }): string => `expected a whole number from 1 to ${MAX_WORKERS}, got ${show(iss.input)}`;

const server = z.strictObject({
  host: z.string().min(1).default('0.0.0.0'),
  port: port.default(8080),
  /** Peers whose X-Forwarded-* and X-Ssl-Client-* headers are honoured (exact IP addresses). */
  trustedProxies: z.array(z.string().refine((ip) => /^[0-9a-fA-F.:]+$/.test(ip), { error: (iss) => `expected an IP address, got ${show(iss.input)}` })).default([]),
  /** uWS event loops sharing the port (src/app/workers.ts); more than one needs the redis store. */
  workers: z
    .number({ error: workersMessage })
    .int({ error: workersMessage })
    .min(1, { error: workersMessage })
    .max(MAX_WORKERS, { error: workersMessage })
    .default(1),
});

const redisUrl = z.string().regex(/^rediss?:\/\//, { error: (iss) => `expected a redis:// or rediss:// URL, got ${show(iss.input)}` });

const store = z.strictObject({
  kind: z.enum(['memory', 'redis']).default('memory'),
  redisUrl: redisUrl.default('redis://127.0.0.1:6379'),
  /** Nodes of a Redis Cluster (some are enough); when set, the redis store runs on the cluster and redisUrl is unused. */
  redisCluster: z
    // PEREGRINE_REDIS_CLUSTER gives them as one comma-separated string
    .preprocess((v) => (typeof v === 'string' ? v.split(',').map((u) => u.trim()).filter((u) => u !== '') : v), z.array(redisUrl))
    .default([]),
  /** Entries of the poll path's client-side cache per server process (0: none, every poll reads Redis); four per device served. */
  redisCacheEntries: z.number().int().min(0).default(400_000),
  /** Replicas that must confirm each commit (Redis WAIT) before it is acknowledged; 0: the master's word is enough. */
  redisWaitReplicas: z.number().int().min(0).default(0),
});

const limits = z.strictObject({
  jsonBodyBytes: positiveInt.default(1_048_576), // 1 MiB
  uploadBytes: positiveInt.default(1_074_790_400), // 1 GiB + 1 MiB: a 1 GiB artifact (the quota) plus multipart framing
  defaultPageSize: positiveInt.default(50),
  maxPageSize: positiveInt.default(500),
  /** What a live event connection (SSE, WebSocket) may hold unsent before it is dropped as a slow consumer. */
  eventBufferBytes: positiveInt.default(1_048_576), // 1 MiB
});

/** Artifact downloads: the hot binaries kept in memory, and handing the bytes to nginx (deploy/nginx.conf). */
const artifacts = z.strictObject({
  /** Memory per event loop for the binaries being downloaded (each enters on its second download); 0: none. */
  hotCacheBytes: z.number().int().min(0).default(268_435_456), // 256 MiB
  /**
   * Off by default. On: a plain artifact GET that came through a trusted proxy (server.trustedProxies) is
   * answered with X-Accel-Redirect: <location><tenant>/<sha1[0:2]>/<sha1>, and nginx's internal
   * `location` (an alias of <dataDir>/artifacts/) sends the file. Every check runs here first.
   */
  accelRedirect: z
    .strictObject({
      enabled: z.boolean().default(false),
      location: z
        .string()
        .regex(/^\/[\x21-\x7e]*\/$/, { error: (iss) => `expected a path that starts and ends with /, such as /_peregrine/artifacts/, got ${show(iss.input)}` })
        .default('/_peregrine/artifacts/'),
    })
    .prefault({}),
});

const ddi = z.strictObject({
  /** System-wide switches: a DDI authentication mode works only when this and the tenant allow it. */
  authentication: z
    .strictObject({
      targetToken: z.boolean().default(true),
      gatewayToken: z.boolean().default(true),
      anonymous: z.boolean().default(false),
      certificate: z.boolean().default(true),
      /**
       * Which generation's proxy headers name the certificate: 0.9's X-Ssl-Client-Cn / X-Ssl-Issuer-Hash-N,
       * 1.x's X-Controller-Id / X-Authority-N, or both. 0.9 by default: a proxy configured before 1.x names
       * existed clears only the X-Ssl-* ones, and would pass a client's own X-Controller-Id through.
       */
      certificateHeaders: z.enum(['0.9', '1.x', 'both']).default('0.9'),
    })
    .prefault({}),
  pollFlushMs: positiveInt.default(1000), // 1 second
  /** How long the poll's express lane reuses a device's peer address (a socket read per poll otherwise). */
  pollAddressRefreshMs: positiveInt.default(10_000),
  pollLimiter: z
    .strictObject({
      /**
       * Devices at these addresses are never paced (the client's address: behind a trusted proxy, the
       * first X-Forwarded-For hop). Default: loopback, private and link-local IPv4, as hawkBit's DoS
       * filter whitelist (hawkbit.server.security.dos.filter.whitelist).
       */
      exemptCidrs: z
        .array(z.string().refine((c) => parseCidr(c) !== undefined, { error: (iss) => `expected an IPv4 CIDR block such as 10.0.0.0/8, got ${show(iss.input)}` }))
        .default(['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']),
    })
    .prefault({}),
});

/**
 * The DMF connector (Device Management Federation over AMQP 0-9-1, src/dmf). Off by default, so a
 * plain `npm start` needs no broker. `url` names the broker only (scheme, host, port); credentials
 * and the virtual host have their own keys, so they never hide inside a URL in logs.
 */
const dmf = z.strictObject({
  enabled: z.boolean().default(false),
  url: z
    .string()
    .default('amqp://127.0.0.1:5672')
    .superRefine((raw, ctx) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: `expected an amqp:// or amqps:// URL, got ${show(raw)}` });
        return;
      }
      if (url.protocol !== 'amqp:' && url.protocol !== 'amqps:') ctx.addIssue({ code: 'custom', message: `expected an amqp:// or amqps:// URL, got ${show(raw)}` });
      else if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: 'put the credentials in dmf.username and dmf.password, not in the URL' });
      else if (url.pathname !== '' && url.pathname !== '/') ctx.addIssue({ code: 'custom', message: 'put the virtual host in dmf.vhost, not in the URL' });
    }),
  vhost: z.string().min(1).default('/'),
  username: z.string().default('guest'),
  password: z.string().default('guest'),
  /** Messages taken from dmf_receiver before acknowledging (and worked on at once, one at a time per device). */
  prefetch: positiveInt.max(65535).default(64),
  /** Base of the artifact download URLs in DMF messages (a DDI download URL); default http://<server.host>:<server.port>. */
  downloadBaseUrl: z.string().regex(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, { error: (iss) => `expected an http:// or https:// URL without query, got ${show(iss.input)}` }).optional(),
  /** Artifact hashes in DMF messages add `sha256` to hawkBit's `{sha1, md5}` (a client built on hawkBit's DmfArtifactHash refuses it). */
  extendedHashes: z.boolean().default(false),
  receiverQueue: z.string().min(1).max(255).default('dmf_receiver'),
  deadLetterExchange: z.string().min(1).max(255).default('dmf.connector.deadletter'),
  deadLetterQueue: z.string().min(1).max(255).default('dmf_connector_deadletter_ttl'),
  deadLetterTtlMs: positiveInt.default(1_814_400_000), // 21 days, hawkBit's default
});

/**
 * Wire forms of hawkBit generations where the spec and hawkBit 1.x disagree (src/domain/compat.ts).
 * `managementApi` is the system default of the tenant key `compat.managementApi`; YAML reads an
 * unquoted 0.9 as a number, taken as "0.9".
 */
const compat = z.strictObject({
  managementApi: z
    .preprocess((v) => (v === 0.9 ? '0.9' : v), z.enum(MANAGEMENT_API_GENERATIONS, {
      error: (iss) => `expected "0.9" or "1.x", got ${show(iss.input)}`,
    }))
    .default('0.9'),
});

/** A tenant's name as written in config.yaml; stored upper-case. */
const tenantName = z
  .string()
  .regex(TENANT_NAME, { error: (iss) => `${TENANT_NAME_EXPECTED}, got ${show(iss.input)}` })
  .transform((name) => name.toUpperCase());

const user = z.strictObject({
  username: z.string().regex(USERNAME, { error: (iss) => `${USERNAME_EXPECTED}, got ${show(iss.input)}` }),
  password: z.string().refine(isPasswordHash, {
    error: 'expected an scrypt hash (scrypt$N$r$p$salt$hash); create one with `peregrine hash-password`',
  }),
  permissions: z.array(z.string().refine(isPermission, { error: (iss) => `unknown permission ${show(iss.input)}` })).default([]),
});

/** A webhook config.yaml declares for a tenant (created or brought up to date, by name, when the server starts). */
const tenantWebhook = z.strictObject({
  name: z.string().min(1).max(128),
  url: z.string().superRefine((raw, ctx) => {
    const problem = webhookUrlProblem(raw);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  }),
  secret: z.string().min(16, { error: 'expected at least 16 characters' }).max(256),
  kinds: z.array(z.enum(WEBHOOK_KINDS)).min(1).default([...WEBHOOK_KINDS]),
  enabled: z.boolean().default(true),
});

const tenant = z
  .strictObject({
    name: tenantName,
    users: z.array(user).default([]),
    config: z.record(z.string(), z.unknown()).default({}),
    webhooks: z.array(tenantWebhook).default([]),
  })
  .superRefine((t, ctx) => {
    const seen = new Set<string>();
    t.users.forEach((u, i) => {
      if (seen.has(u.username)) ctx.addIssue({ code: 'custom', path: ['users', i, 'username'], message: `duplicate username "${u.username}" in tenant ${t.name}` });
      seen.add(u.username);
    });
    const names = new Set<string>();
    t.webhooks.forEach((w, i) => {
      if (names.has(w.name.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['webhooks', i, 'name'], message: `duplicate webhook "${w.name}" in tenant ${t.name}` });
      names.add(w.name.toLowerCase());
    });
  });

/** How webhooks are delivered (src/webhooks): the same for every tenant. */
const webhooks = z
  .strictObject({
    /** How often the delivery loop looks for new journal entries and due retries. */
    intervalMs: positiveInt.default(1_000), // 1 second
    /** An attempt that has not been answered in this time failed. */
    timeoutMs: positiveInt.default(10_000), // 10 seconds
    /** Attempts of one event before it becomes a dead letter. */
    attempts: positiveInt.max(100).default(10),
    /** The wait after the n-th failed attempt: initialMs x factor^(n-1), at most maxMs. */
    backoff: z
      .strictObject({
        initialMs: positiveInt.default(10_000), // 10 seconds
        factor: z.number().min(1).max(10).default(2),
        maxMs: positiveInt.default(3_600_000), // 1 hour
      })
      .prefault({})
      .refine((b) => b.maxMs >= b.initialMs, { error: 'maxMs must not be below initialMs', path: ['maxMs'] }),
    /** Attempts in flight at once per tenant. */
    concurrency: positiveInt.max(256).default(16),
    /** The per-tenant lease of the delivery loop: a surviving instance takes over this long after the holder died. */
    leaseMs: positiveInt.default(10_000), // 10 seconds
  })
  .prefault({});

/** A URL of http or https, as an OpenID issuer or redirect URL (the key is named by the caller's path). */
const httpUrl = z.string().regex(/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/, { error: (iss) => `expected an http:// or https:// URL without query, got ${show(iss.input)}` });

/**
 * Sign-in for people and tokens for scripts (src/auth): the session cookie's key and lifetime, and an
 * optional OpenID Connect provider whose users sign in to the console and whose access tokens the
 * Management API accepts as bearer tokens. A missing session secret is generated here, once per
 * process, so every event loop of the process signs with the same key (`secretGenerated` says so).
 */
const auth = z.strictObject({
  session: z
    .strictObject({
      secret: z.string().min(32, { error: 'expected at least 32 characters' }).optional(),
      ttlMinutes: positiveInt.max(525_600).default(480), // 8 hours; at most a year
    })
    .prefault({})
    .transform((s) => ({ ...s, secret: s.secret ?? randomBytes(32).toString('base64url'), secretGenerated: s.secret === undefined })),
  oidc: z
    .strictObject({
      /** Exactly as the provider writes it in its tokens' `iss` (a trailing slash counts). */
      issuer: httpUrl,
      clientId: z.string().min(1),
      clientSecret: z.string().min(1).optional(),
      /** Audience of bearer tokens; default clientId. */
      audience: z.string().min(1).optional(),
      redirectUrl: httpUrl.optional(),
      scopes: z
        .preprocess((v) => (typeof v === 'string' ? v.split(/\s+/).filter((x) => x !== '') : v), z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).min(1))
        .default(['openid', 'profile', 'email']),
      tenant: tenantName.default('DEFAULT'),
      usernameClaim: z.string().min(1).default('preferred_username'),
      /** Dot path into the token's claims, e.g. realm_access.roles. */
      rolesClaim: z.string().regex(/^[^.]+(\.[^.]+)*$/, { error: (iss) => `expected a dot path such as realm_access.roles, got ${show(iss.input)}` }).default('roles'),
      roles: z.record(z.string(), z.array(z.string().refine(isPermission, { error: (iss) => `unknown permission ${show(iss.input)}` }))).default({}),
    })
    .optional(),
});

export const configSchema = z
  .strictObject({
    server: server.prefault({}),
    store: store.prefault({}),
    dataDir: z.string().min(1).default('./data'),
    log: z.strictObject({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }).prefault({}),
    limits: limits.prefault({}),
    artifacts: artifacts.prefault({}),
    ddi: ddi.prefault({}),
    dmf: dmf.prefault({}),
    auth: auth.prefault({}),
    /** hawkbit.server.security.dos.* (src/domain/quotas.ts): each a positive whole number; an unknown name is an error. */
    quotas: z.strictObject(quotaShape).prefault({}),
    compat: compat.prefault({}),
    webhooks,
    /**
     * Background work intervals (ms). Defaults follow hawkBit where it has one (auto-assignment every 2 s).
     * The only definition: src/scheduler/settings.ts takes its type from here.
     */
    scheduler: z
      .strictObject({
        /** false: no loops run (runOnce still works). */
        enabled: z.boolean().default(true),
        autoAssignMs: positiveInt.default(2_000), // 2 seconds
        cleanupMs: positiveInt.default(3_600_000), // 1 hour
        maintenanceMs: positiveInt.default(60_000), // 1 minute
        overdueMs: positiveInt.default(30_000), // 30 seconds
        /** Targets assigned per batch by auto-assignment (hawkBit: 999). */
        autoAssignBatch: positiveInt.default(100),
        /**
         * The rollout engine's pass interval. hawkBit ticks every 2 s and starts at most one step per tick;
         * here a pass costs a few reads when nothing is due, so it runs often and a group starts within
         * this long of its predecessor meeting its success condition.
         */
        rolloutMs: positiveInt.default(200), // 0.2 seconds
        /** The rollout engine's per-tenant lease: a surviving instance takes over this long after the holder died. */
        rolloutLeaseMs: positiveInt.default(5_000), // 5 seconds
      })
      .prefault({}),
    tenants: z
      .array(tenant)
      .default([])
      .superRefine((tenants, ctx) => {
        const seen = new Set<string>();
        tenants.forEach((t, i) => {
          if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate tenant "${t.name}"` });
          seen.add(t.name);
        });
      }),
  })
  .superRefine((c, ctx) => {
    if (c.auth.oidc !== undefined && !c.tenants.some((t) => t.name === c.auth.oidc?.tenant)) {
      ctx.addIssue({ code: 'custom', path: ['auth', 'oidc', 'tenant'], message: `tenant "${c.auth.oidc.tenant}" is not configured in tenants` });
    }
    if (c.limits.defaultPageSize > c.limits.maxPageSize) {
      ctx.addIssue({ code: 'custom', path: ['limits', 'defaultPageSize'], message: `must not exceed limits.maxPageSize (${c.limits.maxPageSize})` });
    }
  });

type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The validated, frozen configuration. */
export type Config = DeepReadonly<z.output<typeof configSchema>>;
export type TenantConfig = Config['tenants'][number];
/** What config.yaml may contain (before defaults). */
export type ConfigInput = z.input<typeof configSchema>;
