import autocannon from 'autocannon';

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly requests: number;
}

export interface LoadOptions {
  readonly url: string;
  /** Requests cycled through: path and headers per request. */
  readonly requests: readonly { path: string; headers?: Record<string, string> }[];
  readonly connections: number;
  readonly durationS: number;
  /** Fixed offered rate for the whole run (req/s); absent: as fast as possible. */
  readonly rate?: number;
  readonly pipelining?: number;
}

/** One autocannon run; non-2xx answers and errors are counted, the caller decides if they are fatal. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const list = opts.requests;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationS,
    pipelining: opts.pipelining ?? 1,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [{
      setupRequest: (req) => {
        const r = list[next++ % list.length]!;
        return { ...req, method: 'GET', path: r.path, headers: { ...req.headers, ...r.headers } };
      },
    }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
}
