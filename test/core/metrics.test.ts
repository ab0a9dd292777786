import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../src/core/metrics.ts';

describe('metrics registry', () => {
  it('renders counters, cumulative histogram buckets and gauges in the Prometheus text format', () => {
    const registry = createMetricsRegistry();
    const polls = registry.counter('x_polls_total', 'Polls.');
    const duration = registry.histogram('x_duration_seconds', 'Duration.', [1, 0.5]);
    polls.inc({ outcome: 'ok' });
    polls.inc({ outcome: 'ok' });
    polls.inc({ outcome: 'failed' });
    duration.observe(0.2);
    duration.observe(0.7);
    duration.observe(3);
    const text = registry.render([{ name: 'x_due', help: 'Due\nnow.', values: [{ value: 4 }] }]);
    expect(text).toBe(
      [
        '# HELP x_polls_total Polls.',
        '# TYPE x_polls_total counter',
        'x_polls_total{outcome="ok"} 2',
        'x_polls_total{outcome="failed"} 1',
        '# HELP x_duration_seconds Duration.',
        '# TYPE x_duration_seconds histogram',
        'x_duration_seconds_bucket{le="0.5"} 1',
        'x_duration_seconds_bucket{le="1"} 2',
        'x_duration_seconds_bucket{le="+Inf"} 3',
        'x_duration_seconds_sum 3.9',
        'x_duration_seconds_count 3',
        '# HELP x_due Due\\nnow.',
        '# TYPE x_due gauge',
        'x_due 4',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and keeps label order irrelevant to the series', () => {
    const registry = createMetricsRegistry();
    const c = registry.counter('x_total', 'X.');
    c.inc({ a: '1', b: 'say "hi"\\\n' });
    c.inc({ b: 'say "hi"\\\n', a: '1' });
    expect(registry.render([])).toContain('x_total{a="1",b="say \\"hi\\"\\\\\\n"} 2');
  });
});
