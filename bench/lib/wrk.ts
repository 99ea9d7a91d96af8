/**
 * Raw request rates with `wrk` (C, epoll; the Debian package): a generator far cheaper per request
 * than any Node client, so the server, not the generator, is what saturates. Per-device requests
 * (paths, TargetToken headers, bodies) are written to a file that a Lua script pre-formats once per
 * wrk thread and cycles through, each thread from its own offset. wrk's own CPU is sampled from
 * /proc while it runs, so every result says how busy the generator was (1.0 = one core per thread).
 *
 * With `rate`, each connection waits between requests so that the whole run offers about that
 * rate (wrk's `delay()`): a light, steady load for latency at a fraction of the maximum. That is a
 * closed loop with think time, the same for the server and the ceiling it is compared with.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface WrkOptions {
  readonly url: string;
  /** Cycled through; absent: a plain GET of `url` without a script (wrk at its fastest). */
  readonly requests?: readonly WrkRequest[];
  readonly connections: number;
  readonly threads?: number;
  readonly durationS: number;
  /** Offered rate over all connections (req/s); absent: as fast as the server answers. */
  readonly rate?: number;
}

export interface WrkResult {
  readonly rps: number;
  /** Bytes per second read (headers and bodies). */
  readonly bytesPerS: number;
  /** Latency percentiles, ms. */
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Answers with a status outside 2xx and 3xx. */
  readonly non2xx: number;
  /** Connect, read, write errors and timeouts. */
  readonly errors: number;
  /** wrk's CPU while loading: cores busy (user + system), over the sampled window. */
  readonly generatorCpu: number;
  /** The same for the process under load, when its pid was given. */
  readonly serverCpu: number | undefined;
  readonly threads: number;
}

const LUA = `
local reqs, n, idx, rate_ms = {}, 0, 0, 0
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
function init(args)
  local f = assert(io.open(args[1], "r"))
  for line in f:lines() do
    local method, path, hdrs, body = line:match("^([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t(.*)$")
    local headers = {}
    for k, v in hdrs:gmatch("([^\\1]+)\\1([^\\2]*)\\2") do headers[k] = v end
    n = n + 1
    reqs[n] = wrk.format(method, path, headers, body ~= "" and body or nil)
  end
  f:close()
  idx = ((tid or 0) * 7919) % n
  rate_ms = tonumber(args[2])
end
function request()
  idx = idx + 1
  if idx > n then idx = 1 end
  return reqs[idx]
end
function delay()
  if rate_ms == nil or rate_ms <= 0 then return 0 end
  local d = math.floor(rate_ms)
  if math.random() < rate_ms - d then d = d + 1 end
  return d
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"status":%d,"errors":%d,"p50":%f,"p99":%f}\\n',
    summary.requests, summary.duration, summary.bytes, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`;

export const TICKS_PER_S = 100; // USER_HZ on Linux

/** utime + stime of a process and all its threads, in ticks; undefined once it is gone. */
export function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Runs wrk once; resolves with its figures. */
export async function wrk(opts: WrkOptions, serverPid?: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'peregrine-wrk-'));
  const threads = opts.threads ?? 1;
  try {
    const script = join(dir, 'script.lua');
    const list = join(dir, 'requests.tsv');
    const requests = opts.requests ?? [{ path: new URL(opts.url).pathname || '/' }];
    writeFileSync(list, requests.map(line).join('\n') + '\n');
    writeFileSync(script, LUA);
    const rateMs = opts.rate === undefined ? 0 : (opts.connections * 1000) / opts.rate;
    const args = ['-t', String(threads), '-c', String(opts.connections), '-d', `${opts.durationS}s`, '--timeout', '10s', '-s', script, opts.url, '--', list, String(rateMs)];
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const pid = child.pid ?? 0;
    // sample from 0.5 s in (set-up done, connections open) to 0.25 s before the end
    const samples: { t: number; g: number | undefined; s: number | undefined }[] = [];
    const sample = (): void =>
      void samples.push({ t: performance.now(), g: cpuTicks(pid), s: serverPid === undefined ? undefined : cpuTicks(serverPid) });
    const timers = [setTimeout(sample, 500), setTimeout(sample, Math.max(600, opts.durationS * 1000 - 250))];
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    timers.forEach(clearTimeout);
    const m = /WRKJSON (\{.*\})/.exec(out);
    if (code !== 0 || m === null) throw new Error(`wrk failed (exit ${code}): ${err || out}`);
    const j = JSON.parse(m[1] as string) as {
      requests: number; duration_us: number; bytes: number; status: number; errors: number; p50: number; p99: number;
    };
    const seconds = j.duration_us / 1e6;
    const busy = (pick: (x: (typeof samples)[number]) => number | undefined): number | undefined => {
      const [a, b] = samples;
      if (a === undefined || b === undefined) return undefined;
      const x = pick(a);
      const y = pick(b);
      return x === undefined || y === undefined ? undefined : round((y - x) / TICKS_PER_S / ((b.t - a.t) / 1000), 2);
    };
    return {
      rps: Math.round(j.requests / seconds), bytesPerS: Math.round(j.bytes / seconds), p50: round(j.p50, 3), p99: round(j.p99, 3),
      requests: j.requests,
      non2xx: j.status, errors: j.errors, generatorCpu: busy((x) => x.g) ?? NaN, serverCpu: busy((x) => x.s), threads,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One request as a line: method, path, headers (name \x01 value \x02 ...), body; tabs and newlines are not allowed. */
function line(r: WrkRequest): string {
  const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `${k}\x01${v}\x02`).join('');
  const text = [r.method ?? 'GET', r.path, headers, r.body ?? ''].join('\t');
  if (/[\n\r]/.test(text) || (r.body ?? '').includes('\t')) throw new Error(`wrk request cannot carry tabs or newlines: ${r.path}`);
  return text;
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));
