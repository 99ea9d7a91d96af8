import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { startServer } from '../../../src/app/server.js';
import { ADMIN, ADMIN_HASH, http } from '../../helpers/server.js';

/** Security tokens authenticate devices: no log line may ever carry one, at any level. */
describe('device tokens never reach the logs', () => {
  it('at trace level, through accepted and refused target and gateway tokens', async () => {
    const lines: string[] = [];
    const logger = createLogger('trace', { write: (line: string) => { lines.push(line); } });
    const dataDir = mkdtempSync(join(tmpdir(), 'peregrine-secrets-'));
    const config = parseConfig({
      server: { host: '127.0.0.1', port: 0 }, dataDir, store: { kind: 'memory' }, log: { level: 'trace' },
      tenants: [{ name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }] }],
    }, { source: 'test', env: {} });
    const server = await startServer(config, { logger });
    try {
      const api = http(`http://127.0.0.1:${server.port}`);
      const TARGET_TOKEN = 'Tt0kenNeverLoggedAaaaaaaaaaaaaaa';
      const GATEWAY_KEY = 'Gw4yKeyNeverLoggedBbbbbbbbbbbbbb';
      const WRONG = 'Wr0ngTokenNeverLoggedCccccccccccc';
      await api.put('/rest/v1/system/configs', { auth: ADMIN, json: {
        'authentication.targettoken.enabled': true, 'authentication.gatewaytoken.enabled': true, 'authentication.gatewaytoken.key': GATEWAY_KEY,
      } });
      expect((await api.post('/rest/v1/targets', { auth: ADMIN, json: [{ controllerId: 'dev-secret', name: 'dev', securityToken: TARGET_TOKEN }] })).status).toBe(201);
      const poll = (auth: string) => api.get('/DEFAULT/controller/v1/dev-secret', { headers: { authorization: auth } });
      expect((await poll(`TargetToken ${TARGET_TOKEN}`)).status).toBe(200);
      expect((await poll(`GatewayToken ${GATEWAY_KEY}`)).status).toBe(200);
      expect((await poll(`TargetToken ${WRONG}`)).status).toBe(401);
      expect((await poll(`GatewayToken ${WRONG}`)).status).toBe(401);
      expect((await api.get('/DEFAULT/controller/v1/dev-unknown', { headers: { authorization: `TargetToken ${WRONG}` } })).status).toBe(401);
      expect(lines.length).toBeGreaterThan(0);
      const log = lines.join('');
      for (const secret of [TARGET_TOKEN, GATEWAY_KEY, WRONG]) expect(log).not.toContain(secret);
    } finally {
      await server.close(2000);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
