import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

describe('request metrics', () => {
  it('count requests by route, method and status, and expose cumulative latency buckets with sum and count', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const poll = metrics.forRoute('poll');
    poll.observe(0, 200, 0.0004); // GET, first bucket
    poll.observe(0, 200, 0.003); // GET, le 0.005
    poll.observe(0, 304, 20); // beyond the last bucket: only +Inf
    metrics.forRoute('feedback').observe(2, 400, 0.0008); // POST
    const text = await metrics.render();
    expect(text).toContain('http_requests_total{route="poll",method="GET",status="200"} 2');
    expect(text).toContain('http_requests_total{route="poll",method="GET",status="304"} 1');
    expect(text).toContain('http_requests_total{route="feedback",method="POST",status="400"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.0005",route="poll"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.0025",route="poll"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",route="poll"} 2');
    expect(text).toContain('http_request_duration_seconds_bucket{le="10",route="poll"} 2');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",route="poll"} 3');
    expect(text).toContain('http_request_duration_seconds_count{route="poll"} 3');
    expect(text).toMatch(/http_request_duration_seconds_sum\{route="poll"\} 20\.0034/);
    expect(metrics.forRoute('poll')).toBe(poll);
  });

  it('count every status of a route, in any order, and start from zero after a reset', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const poll = metrics.forRoute('poll');
    for (const status of [200, 200, 304, 200, 304, 429, 200]) poll.observe(0, status, 0.0001);
    poll.observe(1, 200, 0.0001); // HEAD
    let text = await metrics.render();
    expect(text).toContain('http_requests_total{route="poll",method="GET",status="200"} 4');
    expect(text).toContain('http_requests_total{route="poll",method="GET",status="304"} 2');
    expect(text).toContain('http_requests_total{route="poll",method="GET",status="429"} 1');
    expect(text).toContain('http_requests_total{route="poll",method="HEAD",status="200"} 1');
    metrics.registry.resetMetrics();
    poll.observe(1, 200, 0.0001);
    text = await metrics.render();
    expect(text).toContain('http_requests_total{route="poll",method="HEAD",status="200"} 1');
    expect(text).not.toContain('status="304"');
  });
});
