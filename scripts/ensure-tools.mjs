#!/usr/bin/env node
// The tests start their own private servers (redis-server, rabbitmq-server, ...). On a machine without
// one of them, install Debian's package (as root, or with sudo), or say exactly what is missing.
// Add a tool by adding one entry to TOOLS.
import { accessSync, constants } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';

/** command: what the tests run; paths: where else it may be (not on a non-root PATH); pkg: the Debian package. */
const TOOLS = [
  { command: 'redis-server', pkg: 'redis-server' },
  // the tests run /usr/lib/rabbitmq/bin/rabbitmq-server (as the calling user); /usr/sbin's wrapper switches to user rabbitmq
  { command: 'rabbitmq-server', paths: ['/usr/lib/rabbitmq/bin/rabbitmq-server'], pkg: 'rabbitmq-server' },
];

const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const missing = TOOLS.filter((t) => !onPath(t.command) && !(t.paths ?? []).some(executable));
if (missing.length === 0) process.exit(0);
const pkgs = missing.map((t) => t.pkg);
if (!onPath('apt-get')) {
  console.error(`peregrine tests need ${missing.map((t) => t.command).join(', ')} (Debian/Ubuntu packages: ${pkgs.join(' ')}). Install them and run the tests again.`);
  process.exit(1);
}
const root = process.getuid?.() === 0;
if (!root && !onPath('sudo')) {
  console.error(`peregrine tests need ${missing.map((t) => t.command).join(', ')}: run \`sudo apt-get install ${pkgs.join(' ')}\` and try again.`);
  process.exit(1);
}
const run = (args) => execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
console.log(`${missing.map((t) => t.command).join(', ')} not found: installing Debian package(s) ${pkgs.join(' ')} (the tests start private instances)`);
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', ...pkgs]);
// a package may start a system service on its default port; the tests never use it, so leave it as the system has it
