#!/usr/bin/env node
// The tests start their own redis-server, nginx and rabbitmq-server processes and make certificates with openssl;
// the benchmarks (and their smoke test) load the server with wrk.
// Usage: node scripts/ensure-tools.mjs redis-server nginx openssl rabbitmq-server
// For each command missing from PATH, install its Debian package (as root, or with sudo), or say
// exactly what is missing.
import { execFileSync, spawnSync } from 'node:child_process';

/** command -> Debian package, and why the tests need it */
const PACKAGES = {
  'redis-server': { pkg: 'redis-server', why: 'the tests start private instances of it' },
  'redis-cli': { pkg: 'redis-tools', why: 'the tests create a private Redis Cluster with redis-cli --cluster create' },
  nginx: { pkg: 'nginx', why: 'the reverse-proxy tests start a private nginx in front of peregrine' },
  openssl: { pkg: 'openssl', why: 'the reverse-proxy tests make their certificates with it' },
  'rabbitmq-server': { pkg: 'rabbitmq-server', why: 'the DMF tests start private RabbitMQ nodes' },
  wrk: { pkg: 'wrk', why: 'the benchmarks load the server and its uWS ceiling with it (npm run bench)' },
  chromium: { pkg: 'chromium', why: "the console's browser tests drive it through playwright-core (test/console)" },
};

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
  // nginx lives in /usr/sbin, which is not on every user's PATH
  || spawnSync('sh', ['-c', `test -x /usr/sbin/${cmd}`], { stdio: 'ignore' }).status === 0;

const wanted = process.argv.slice(2);
for (const cmd of wanted) {
  if (PACKAGES[cmd] === undefined) {
    console.error(`ensure-tools: no Debian package known for '${cmd}'; add it to PACKAGES in ${process.argv[1]}`);
    process.exit(2);
  }
}
const missing = wanted.filter((cmd) => !has(cmd));
if (missing.length === 0) process.exit(0);
const packages = [...new Set(missing.map((cmd) => PACKAGES[cmd].pkg))];
const list = packages.join(' ');
if (!has('apt-get')) {
  console.error(`peregrine tests need ${missing.join(', ')} on PATH (Debian/Ubuntu packages: ${list}). Install them and run the tests again.`);
  process.exit(1);
}
const root = process.getuid?.() === 0;
if (!root && !has('sudo')) {
  console.error(`peregrine tests need ${missing.join(', ')}: run \`sudo apt-get install ${list}\` and try again.`);
  process.exit(1);
}
const run = (args) => execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
for (const cmd of missing) console.log(`${cmd} not found: installing Debian package ${PACKAGES[cmd].pkg} (${PACKAGES[cmd].why})`);
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', ...packages]);
// the packages start system services (redis on 6379, nginx on 80, rabbitmq on 5672); the tests never use them,
// so leave them as the system has them
