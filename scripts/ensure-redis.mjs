#!/usr/bin/env node
// The tests start their own redis-server processes. On a machine without one, install Debian's
// package (as root, or with sudo), or say exactly what is missing.
import { execFileSync, spawnSync } from 'node:child_process';

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

if (has('redis-server') && has('redis-cli')) process.exit(0);
if (!has('apt-get')) {
  console.error('peregrine tests need redis-server on PATH (Debian/Ubuntu package: redis-server). Install it and run the tests again.');
  process.exit(1);
}
const root = process.getuid?.() === 0;
if (!root && !has('sudo')) {
  console.error('peregrine tests need redis-server: run `sudo apt-get install redis-server` and try again.');
  process.exit(1);
}
const run = (args) => execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
console.log('redis-server not found: installing Debian package redis-server (the tests start private instances of it)');
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', 'redis-server']);
// the package starts a system service on 6379; the tests never use it, so leave it as the system has it
