import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../../src/config/index.js';
import { QUOTA_DEFAULTS } from '../../../src/domain/quotas.js';

const ADMIN_HASH = 'scrypt$16384$8$1$/2IbPaJoZua8l8nJztftPA==$ru9/PNbA1RlflkrcmK83vYqBNMoegJmyOfbK6+Yr9O0='; // 'admin'

function tmpFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-config-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config loading', () => {
  it('fills every default from an empty document', () => {
    const c = parseConfig({});
    expect(c.server).toEqual({ host: '0.0.0.0', port: 8080, trustedProxies: [], workers: 1 });
    expect(c.store).toEqual({ kind: 'memory', redisUrl: 'redis://127.0.0.1:6379', redisCluster: [], redisCacheEntries: 400_000, redisWaitReplicas: 0 });
    expect(c.dataDir).toBe('./data');
    expect(c.log.level).toBe('info');
    expect(c.limits).toEqual({
      jsonBodyBytes: 1048576, uploadBytes: 1074790400, defaultPageSize: 50, maxPageSize: 500, eventBufferBytes: 1048576,
    });
    expect(c.ddi).toEqual({
      authentication: { targetToken: true, gatewayToken: true, anonymous: false, certificate: true, certificateHeaders: '0.9' },
      pollFlushMs: 1000, pollAddressRefreshMs: 10_000,
      pollLimiter: { exemptCidrs: ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'] },
    });
    expect(c.quotas).toEqual(QUOTA_DEFAULTS);
    expect(c.tenants).toEqual([]);
  });

  it('keeps the DMF connector off by default and checks its keys', () => {
    expect(parseConfig({}).dmf).toMatchObject({ enabled: false, url: 'amqp://127.0.0.1:5672', vhost: '/', receiverQueue: 'dmf_receiver', prefetch: 64, extendedHashes: false });
    expect(parseConfig({ dmf: { enabled: true, url: 'amqps://broker:5671', vhost: 'prod' } }).dmf).toMatchObject({ enabled: true, url: 'amqps://broker:5671' });
    expect(errorOf(() => parseConfig({ dmf: { url: 'http://broker' } }, { source: 'c.yaml' }))).toContain('c.yaml: dmf.url: expected an amqp:// or amqps:// URL, got "http://broker"');
    expect(errorOf(() => parseConfig({ dmf: { url: 'amqp://u:p@broker' } }))).toContain('dmf.url: put the credentials in dmf.username and dmf.password');
    expect(errorOf(() => parseConfig({ dmf: { url: 'amqp://broker/prod' } }))).toContain('dmf.url: put the virtual host in dmf.vhost');
    expect(errorOf(() => parseConfig({ dmf: { downloadBaseUrl: 'ftp://x' } }))).toContain('dmf.downloadBaseUrl: expected an http:// or https:// URL');
    expect(errorOf(() => parseConfig({ dmf: { prefetch: 0 } }))).toContain('dmf.prefetch');
    expect(errorOf(() => parseConfig({ dmf: { extendedHashes: 'yes' } }))).toContain('dmf.extendedHashes');
  });

  it('returns a deeply frozen object', () => {
    const c = parseConfig({ tenants: [{ name: 'x', users: [] }] });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.server)).toBe(true);
    expect(Object.isFrozen(c.tenants[0])).toBe(true);
  });

  it('upper-cases tenant names and keeps their configuration as given', () => {
    const c = parseConfig({ quotas: { maxActionsPerTarget: 5 }, tenants: [{ name: 'acme_1', config: { pollingTime: '00:01:00' } }] });
    expect(c.tenants[0]?.name).toBe('ACME_1');
    expect(c.tenants[0]?.config).toEqual({ pollingTime: '00:01:00' });
    expect(c.quotas.maxActionsPerTarget).toBe(5);
  });

  it.each([
    [{ server: { port: 'abc' } }, 'config.yaml: server.port: expected a number from 0 to 65535, got "abc"'],
    [{ server: { port: 70000 } }, 'config.yaml: server.port: expected a number from 0 to 65535, got 70000'],
    [{ sever: {} }, 'config.yaml: (root): unknown key: sever'],
    [{ store: { kind: 'mongo' } }, 'config.yaml: store.kind: must be one of "memory", "redis", got "mongo"'],
    [{ store: { redisCluster: ['redis://a:1', 'a:2'] } }, 'config.yaml: store.redisCluster[1]: expected a redis:// or rediss:// URL, got "a:2"'],
    [{ limits: { jsonBodyBytes: 0 } }, 'config.yaml: limits.jsonBodyBytes: must be at least 1, got 0'],
    [{ ddi: { pollLimiter: { exemptCidrs: ['10.0.0.1/8'] } } }, 'config.yaml: ddi.pollLimiter.exemptCidrs[0]: expected an IPv4 CIDR block such as 10.0.0.0/8, got "10.0.0.1/8"'],
    [{ limits: { defaultPageSize: 900 } }, 'config.yaml: limits.defaultPageSize: must not exceed limits.maxPageSize (500)'],
    [{ artifacts: { hotCacheBytes: -1 } }, 'config.yaml: artifacts.hotCacheBytes: must be at least 0, got -1'],
    [{ artifacts: { accelRedirect: { location: 'files' } } }, 'config.yaml: artifacts.accelRedirect.location: expected a path that starts and ends with /'],
    [{ tenants: [{ name: 'a b' }] }, 'config.yaml: tenants[0].name: expected 1-64 of A-Z a-z 0-9 _ -, got "a b"'],
    [{ tenants: [{ name: 'a' }, { name: 'A' }] }, 'config.yaml: tenants[1].name: duplicate tenant "A"'],
    [{ tenants: [{ name: 'a', users: [{ username: 'u', password: 'plain' }] }] }, 'config.yaml: tenants[0].users[0].password: expected an scrypt hash'],
    [{ tenants: [{ name: 'a', users: [{ username: 'u', password: ADMIN_HASH, permissions: ['FLY'] }] }] }, 'config.yaml: tenants[0].users[0].permissions[0]: unknown permission "FLY"'],
    [{ tenants: [{ name: 'a', users: [{ password: ADMIN_HASH }] }] }, 'config.yaml: tenants[0].users[0].username: required'],
    [{ tenants: [{ name: 'a', users: [{ username: 'u', password: ADMIN_HASH }, { username: 'u', password: ADMIN_HASH }] }] }, 'duplicate username "u"'],
  ])('rejects %j naming the key', (raw, message) => {
    expect(errorOf(() => parseConfig(raw, { source: 'config.yaml' }))).toContain(message);
  });

  it('accepts every documented permission name and ALL', () => {
    const c = parseConfig({
      tenants: [{ name: 't', users: [{ username: 'u', password: ADMIN_HASH, permissions: ['ALL', 'READ_TARGET', 'CREATE_REPOSITORY', 'TENANT_CONFIGURATION', 'READ_TARGET_SECURITY_TOKEN', 'APPROVE_ROLLOUT', 'HANDLE_ROLLOUT'] }] }],
    });
    expect(c.tenants[0]?.users[0]?.permissions).toContain('ALL');
  });

  it('applies environment overrides on top of the file', () => {
    const c = parseConfig(
      { server: { port: 1 }, store: { kind: 'memory' } },
      { env: { PEREGRINE_PORT: '9090', PEREGRINE_HOST: '127.0.0.1', PEREGRINE_STORE: 'redis', PEREGRINE_REDIS_URL: 'redis://127.0.0.1:7000', PEREGRINE_DATA_DIR: '/var/lib/p', PEREGRINE_LOG_LEVEL: 'debug' } },
    );
    expect(c.server.port).toBe(9090);
    expect(c.server.host).toBe('127.0.0.1');
    expect(c.store).toEqual({ kind: 'redis', redisUrl: 'redis://127.0.0.1:7000', redisCluster: [], redisCacheEntries: 400_000, redisWaitReplicas: 0 });
    expect(c.dataDir).toBe('/var/lib/p');
    expect(c.log.level).toBe('debug');
  });

  it('reads the cluster nodes as a YAML list or as one comma-separated environment variable', () => {
    const nodes = ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000'];
    expect(parseConfig({ store: { kind: 'redis', redisCluster: nodes } }).store.redisCluster).toEqual(nodes);
    const fromEnv = parseConfig({}, { env: { PEREGRINE_STORE: 'redis', PEREGRINE_REDIS_CLUSTER: ' redis://10.0.0.1:7000, redis://10.0.0.2:7000,' } });
    expect(fromEnv.store).toEqual({ kind: 'redis', redisUrl: 'redis://127.0.0.1:6379', redisCluster: nodes, redisCacheEntries: 400_000, redisWaitReplicas: 0 });
    const msg = errorOf(() => parseConfig({}, { env: { PEREGRINE_REDIS_CLUSTER: 'redis://a:1,b:2' } }));
    expect(msg).toBe('PEREGRINE_REDIS_CLUSTER (store.redisCluster[1]): expected a redis:// or rediss:// URL, got "b:2"');
  });

  it('takes server.workers from the file, PEREGRINE_WORKERS over it, a command-line flag over both', () => {
    const flag = (value: string | undefined) => [{ name: '--workers', path: ['server', 'workers'], value }];
    expect(parseConfig({ server: { workers: 3 } }).server.workers).toBe(3);
    expect(parseConfig({ server: { workers: 3 } }, { env: { PEREGRINE_WORKERS: '4' } }).server.workers).toBe(4);
    expect(parseConfig({ server: { workers: 3 } }, { env: { PEREGRINE_WORKERS: '4' }, flags: flag('2') }).server.workers).toBe(2);
    expect(parseConfig({}, { env: { PEREGRINE_WORKERS: '4' }, flags: flag(undefined) }).server.workers).toBe(4);
    expect(errorOf(() => parseConfig({ server: { workers: 0 } }, { source: 'config.yaml' }))).toBe(
      'config.yaml: server.workers: expected a whole number from 1 to 64, got 0',
    );
    expect(errorOf(() => parseConfig({}, { flags: flag('x') }))).toBe('--workers (server.workers): expected a whole number from 1 to 64, got "x"');
  });

  it('names the environment variable when an override is invalid', () => {
    const msg = errorOf(() => parseConfig({}, { source: 'config.yaml', env: { PEREGRINE_PORT: 'abc', PEREGRINE_STORE: 'x' } }));
    expect(msg).toContain('PEREGRINE_PORT (server.port): expected a number from 0 to 65535, got "abc"');
    expect(msg).toContain('PEREGRINE_STORE (store.kind): must be one of "memory", "redis", got "x"');
  });

  it('loads a YAML file and reports YAML syntax errors with the file name', () => {
    const good = tmpFile('config.yaml', 'server:\n  port: 9999\ntenants:\n  - name: default\n');
    expect(loadConfig({ file: good, env: {} }).server.port).toBe(9999);
    const bad = tmpFile('config.yaml', 'server:\n  port: [1,\n');
    expect(errorOf(() => loadConfig({ file: bad, env: {} }))).toMatch(/config\.yaml: .*(line|col)/i);
    const invalid = tmpFile('config.yaml', 'server:\n  port: abc\n');
    expect(errorOf(() => loadConfig({ file: invalid, env: {} }))).toBe(`${invalid}: server.port: expected a number from 0 to 65535, got "abc"`);
  });

  it('uses built-in defaults for a missing optional file and refuses a missing required one', () => {
    expect(loadConfig({ file: '/nonexistent/config.yaml', required: false, env: {} }).server.port).toBe(8080);
    expect(errorOf(() => loadConfig({ file: '/nonexistent/config.yaml', env: {} }))).toContain('/nonexistent/config.yaml: cannot read');
  });

  it('rejects a document that is not a mapping', () => {
    const file = tmpFile('config.yaml', '- a\n- b\n');
    expect(errorOf(() => loadConfig({ file, env: {} }))).toContain('expected a mapping');
  });
});

describe('the shipped config.yaml', () => {
  it('is valid, has admin on DEFAULT with ALL and listens on 127.0.0.1', async () => {
    const { verifyPassword } = await import('../../../src/config/index.js');
    const c = loadConfig({ file: join(import.meta.dirname, '../../../config.yaml'), env: {} });
    expect(c.server.port).toBe(8080);
    const admin = c.tenants.find((t) => t.name === 'DEFAULT')?.users.find((u) => u.username === 'admin');
    expect(admin?.permissions).toEqual(['ALL']);
    expect(verifyPassword('admin', admin?.password ?? '')).toBe(true);
    // while it holds admin/admin it listens on this machine only
    expect(c.server.host).toBe('127.0.0.1');
  });
});
