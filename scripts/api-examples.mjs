// Records the worked examples of the API reference: starts the built server (dist/, memory store, a free
// port, a temporary data directory, config.yaml's development account), walks through the Management and
// DDI APIs as the README's guide does (types, module with artifact, set, targets, assignment, a device's
// poll, deploymentBase and feedback, a rollout with its groups, tags, filters, configuration), and writes
// every request with the reply it got to src/apidoc/examples.generated.ts: the OpenAPI document shows them
// as its operations' examples, and the reference page under each operation. Real replies, not written by
// hand: test/api/openapi/examples.test.ts checks each against the operation's schemas, so an example that
// no longer matches the API fails the tests until this script is run again.
//   npm run build && node scripts/api-examples.mjs && npm run build
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const OUT = join(root, 'src', 'apidoc', 'examples.generated.ts');
const AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const R = '/rest/v1';

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = s.address();
    s.close(() => resolve(p));
  });
});
const dataDir = mkdtempSync(join(tmpdir(), 'peregrine-examples-'));
const server = spawn(process.execPath, [join(root, 'dist', 'src', 'app', 'cli.js'), 'serve', '--config', join(root, 'config.yaml')], {
  cwd: root,
  env: { ...process.env, PEREGRINE_PORT: String(port), PEREGRINE_DATA_DIR: dataDir, PEREGRINE_STORE: 'memory', PEREGRINE_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;

const examples = [];
const seen = new Set();

/**
 * One request; its reply is kept as the example of `method template` (the first one only), unless
 * `keep` is false. Fails the script on an unexpected status.
 */
async function call(method, template, url, { json, form, headers = {}, status, keep = true } = {}) {
  const init = { method, headers: { authorization: AUTH, accept: 'application/json', ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers['content-type'] = 'application/json';
  } else if (form !== undefined) {
    init.body = form;
  }
  const res = await fetch(base + url, init);
  const text = await res.text();
  if (status !== undefined && res.status !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  const body = text === '' ? undefined : JSON.parse(text);
  const key = `${method} ${template}`;
  if (keep && !seen.has(key)) {
    seen.add(key);
    examples.push({
      method, path: template,
      request: { url, ...(json === undefined ? {} : { body: json }), ...(form === undefined ? {} : { multipart: [...form.keys()] }) },
      response: { status: res.status, ...(body === undefined ? {} : { body }) },
    });
  }
  return body;
}

async function until(read, done) {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out waiting for the server');
}

try {
  await until(() => fetch(`${base}/health`).then((r) => r.ok, () => false), (ok) => ok);
  // Repository
  await call('PUT', `${R}/system/configs/{keyName}`, `${R}/system/configs/authentication.targettoken.enabled`, { json: { value: true }, status: 200 });
  await call('GET', `${R}/system/configs/{keyName}`, `${R}/system/configs/authentication.targettoken.enabled`, { status: 200 });
  const [smType] = await call('POST', `${R}/softwaremoduletypes`, `${R}/softwaremoduletypes`, { json: [{ key: 'firmware', name: 'Firmware', maxAssignments: 1 }], status: 201 });
  await call('GET', `${R}/softwaremoduletypes`, `${R}/softwaremoduletypes?limit=2`, { status: 200 });
  const [sm] = await call('POST', `${R}/softwaremodules`, `${R}/softwaremodules`, { json: [{ name: 'fw', version: '1.0.1', type: 'firmware', vendor: 'ACME' }], status: 201 });
  await call('GET', `${R}/softwaremodules`, `${R}/softwaremodules?limit=2`, { status: 200 });
  await call('GET', `${R}/softwaremodules/{softwareModuleId}`, `${R}/softwaremodules/${sm.id}`, { status: 200 });
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('firmware image 1.0.1\n')]), 'fw-1.0.1.bin');
  const artifact = await call('POST', `${R}/softwaremodules/{softwareModuleId}/artifacts`, `${R}/softwaremodules/${sm.id}/artifacts`, { form, status: 201 });
  await call('GET', `${R}/softwaremodules/{softwareModuleId}/artifacts`, `${R}/softwaremodules/${sm.id}/artifacts`, { status: 200 });
  await call('GET', `${R}/softwaremodules/{softwareModuleId}/artifacts/{artifactId}`, `${R}/softwaremodules/${sm.id}/artifacts/${artifact.id}`, { status: 200 });
  await call('POST', `${R}/softwaremodules/{softwareModuleId}/metadata`, `${R}/softwaremodules/${sm.id}/metadata`, { json: [{ key: 'build', value: '2026-11-27' }], status: 201 });
  await call('GET', `${R}/softwaremodules/{softwareModuleId}/metadata`, `${R}/softwaremodules/${sm.id}/metadata`, { status: 200 });
  const [dsType] = await call('POST', `${R}/distributionsettypes`, `${R}/distributionsettypes`,
    { json: [{ key: 'fw-only', name: 'Firmware only', mandatorymodules: [{ id: smType.id }] }], status: 201 });
  await call('GET', `${R}/distributionsettypes/{distributionSetTypeId}`, `${R}/distributionsettypes/${dsType.id}`, { status: 200 });
  const [ds] = await call('POST', `${R}/distributionsets`, `${R}/distributionsets`,
    { json: [{ name: 'release', version: '1.0.1', type: 'fw-only', modules: [{ id: sm.id }] }], status: 201 });
  await call('GET', `${R}/distributionsets`, `${R}/distributionsets?limit=2`, { status: 200 });
  await call('GET', `${R}/distributionsets/{distributionSetId}`, `${R}/distributionsets/${ds.id}`, { status: 200 });
  await call('GET', `${R}/distributionsets/{distributionSetId}/assignedSM`, `${R}/distributionsets/${ds.id}/assignedSM`, { status: 200 });
  await call('PUT', `${R}/distributionsets/{distributionSetId}`, `${R}/distributionsets/${ds.id}`, { json: { description: 'first release' }, status: 200 });

  // Targets
  const targets = await call('POST', `${R}/targets`, `${R}/targets`, {
    json: [{ controllerId: 'device-01', name: 'Device 01', description: 'lab bench' }, ...['02', '03', '04'].map((n) => ({ controllerId: `device-${n}` }))],
    status: 201,
  });
  await call('GET', `${R}/targets`, `${R}/targets?limit=2&q=controllerId==device-0*`, { status: 200 });
  await call('GET', `${R}/targets/{targetId}`, `${R}/targets/device-01`, { status: 200 });
  await call('PUT', `${R}/targets/{targetId}`, `${R}/targets/device-01`, { json: { description: 'lab bench, rack 2' }, status: 200 });
  await call('POST', `${R}/targets/{targetId}/metadata`, `${R}/targets/device-01/metadata`, { json: [{ key: 'site', value: 'Berlin' }], status: 201 });
  const [tag] = await call('POST', `${R}/targettags`, `${R}/targettags`, { json: [{ name: 'lab', colour: '#2e8b57' }], status: 201 });
  await call('POST', `${R}/targettags/{targetTagId}/assigned`, `${R}/targettags/${tag.id}/assigned`, { json: [{ controllerId: 'device-01' }] });
  await call('GET', `${R}/targettags/{targetTagId}/assigned`, `${R}/targettags/${tag.id}/assigned`, { status: 200 });
  await call('POST', `${R}/targettypes`, `${R}/targettypes`, { json: [{ name: 'gateway', compatibledistributionsettypes: [{ id: dsType.id }] }], status: 201 });
  await call('POST', `${R}/targetfilters`, `${R}/targetfilters`, { json: { name: 'lab devices', query: 'tag==lab' }, status: 201 });
  await call('GET', `${R}/targetfilters`, `${R}/targetfilters`, { status: 200 });

  // Assignment and a device's update over DDI
  const assigned = await call('POST', `${R}/targets/{targetId}/assignedDS`, `${R}/targets/device-01/assignedDS`, { json: [{ id: ds.id, type: 'forced' }], status: 200 });
  const actionId = assigned.assignedActions[0].id;
  await call('GET', `${R}/targets/{targetId}/assignedDS`, `${R}/targets/device-01/assignedDS`, { status: 200 });
  const device = `/DEFAULT/controller/v1/device-01`;
  const ddi = '/{tenant}/controller/v1/{controllerId}';
  const token = { authorization: `TargetToken ${targets[0].securityToken}` };
  await call('GET', ddi, device, { headers: token, status: 200 });
  await call('PUT', `${ddi}/configData`, `${device}/configData`, { headers: token, json: { mode: 'merge', data: { hwRevision: '2', serial: 'A-0001' } }, status: 200 });
  await call('GET', `${ddi}/deploymentBase/{actionId}`, `${device}/deploymentBase/${actionId}`, { headers: token, status: 200 });
  await call('GET', `${ddi}/softwaremodules/{softwareModuleId}/artifacts`, `${device}/softwaremodules/${sm.id}/artifacts`, { headers: token, status: 200 });
  await call('POST', `${ddi}/deploymentBase/{actionId}/feedback`, `${device}/deploymentBase/${actionId}/feedback`,
    { headers: token, json: { status: { execution: 'proceeding', result: { finished: 'none', progress: { cnt: 1, of: 2 } }, details: ['downloading'] } }, status: 200 });
  await call('POST', `${ddi}/deploymentBase/{actionId}/feedback`, `${device}/deploymentBase/${actionId}/feedback`,
    { headers: token, json: { status: { execution: 'closed', result: { finished: 'success' }, details: ['installed 1.0.1'] } }, status: 200, keep: false });
  await call('GET', `${ddi}/installedBase/{actionId}`, `${device}/installedBase/${actionId}`, { headers: token, status: 200 });
  await call('GET', `${ddi}/confirmationBase`, `${device}/confirmationBase`, { headers: token, status: 200 });
  await call('GET', `${R}/targets/{targetId}/actions`, `${R}/targets/device-01/actions`, { status: 200 });
  await call('GET', `${R}/targets/{targetId}/actions/{actionId}`, `${R}/targets/device-01/actions/${actionId}`, { status: 200 });
  await call('GET', `${R}/targets/{targetId}/actions/{actionId}/status`, `${R}/targets/device-01/actions/${actionId}/status`, { status: 200 });
  await call('GET', `${R}/targets/{targetId}/installedDS`, `${R}/targets/device-01/installedDS`, { status: 200 });
  await call('GET', `${R}/targets/{targetId}/attributes`, `${R}/targets/device-01/attributes`, { status: 200 });
  await call('GET', `${R}/actions`, `${R}/actions?limit=2`, { status: 200 });
  await call('GET', `${R}/actions/{actionId}`, `${R}/actions/${actionId}`, { status: 200 });

  // A rollout over the other three devices
  const rollout = await call('POST', `${R}/rollouts`, `${R}/rollouts`, {
    json: {
      name: 'release 1.0.1', distributionSetId: ds.id, targetFilterQuery: 'controllerId=in=(device-02,device-03,device-04)', amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, errorCondition: { condition: 'THRESHOLD', expression: '50' }, errorAction: { action: 'PAUSE' },
    },
    status: 201,
  });
  await until(() => call('GET', `${R}/rollouts/{rolloutId}`, `${R}/rollouts/${rollout.id}`, { keep: false }), (r) => r.status === 'ready');
  await call('GET', `${R}/rollouts/{rolloutId}`, `${R}/rollouts/${rollout.id}`, { status: 200 });
  await call('POST', `${R}/rollouts/{rolloutId}/start`, `${R}/rollouts/${rollout.id}/start`, { status: 204 });
  await until(() => call('GET', `${R}/rollouts/{rolloutId}`, `${R}/rollouts/${rollout.id}`, { keep: false }), (r) => r.status === 'running');
  const groups = await call('GET', `${R}/rollouts/{rolloutId}/deploygroups`, `${R}/rollouts/${rollout.id}/deploygroups`, { status: 200 });
  await call('GET', `${R}/rollouts/{rolloutId}/deploygroups/{groupId}`, `${R}/rollouts/${rollout.id}/deploygroups/${groups.content[0].id}`, { status: 200 });
  await call('GET', `${R}/rollouts/{rolloutId}/deploygroups/{groupId}/targets`, `${R}/rollouts/${rollout.id}/deploygroups/${groups.content[0].id}/targets`, { status: 200 });
  await call('POST', `${R}/rollouts/{rolloutId}/pause`, `${R}/rollouts/${rollout.id}/pause`, { status: 204 });
  await call('POST', `${R}/rollouts/{rolloutId}/resume`, `${R}/rollouts/${rollout.id}/resume`, { status: 204 });
  await call('GET', `${R}/rollouts`, `${R}/rollouts?limit=2`, { status: 200 });
  await call('GET', `${R}/distributionsets/{distributionSetId}/statistics`, `${R}/distributionsets/${ds.id}/statistics`, { status: 200 });
  await call('GET', `${R}/system/configs`, `${R}/system/configs`, { status: 200 });
  await call('GET', `${R}/userinfo`, `${R}/userinfo`, { status: 200 });
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

writeFileSync(OUT, [
  '// Generated by scripts/api-examples.mjs from a real server\'s replies; do not edit.',
  '// Regenerate: npm run build && node scripts/api-examples.mjs && npm run build',
  "import type { ApiExample } from './examples.js';",
  '',
  `export const API_EXAMPLES: readonly ApiExample[] = ${JSON.stringify(examples, null, 2)};`,
  '',
].join('\n'));
// the project's style (quotes, trailing commas), so the generated file passes lint like any other
const fixed = spawnSync(process.execPath, [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--fix', OUT], { cwd: root, stdio: 'inherit' });
if (fixed.status !== 0) process.exit(1);
process.stdout.write(`${OUT}: ${examples.length} examples\n`);
