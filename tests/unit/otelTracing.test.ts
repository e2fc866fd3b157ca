import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OtelTracing, tracesUrl } from '../../adapters/otel/index.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

async function traced(work: (tracing: OtelTracing) => void | Promise<void>): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const tracing = new OtelTracing({ endpoint: 'http://127.0.0.1:1', serviceName: 'unit', exporter });
  try {
    await work(tracing);
    // Shutting down empties the in-memory exporter: read what the processor flushed first.
    await tracing.spanProcessor.forceFlush();
    return exporter.getFinishedSpans();
  } finally {
    await tracing.shutdown();
  }
}

test('a span below a valid traceparent joins its trace, as its child; its own traceparent names it', async () => {
  let carrier: string | undefined;
  const [span] = await traced((tracing) => {
    const started = tracing.startSpan('child', { parent: PARENT, kind: 'server', attributes: { a: 1 } });
    carrier = started.traceparent;
    started.end({ name: 'renamed', attributes: { b: 'x' } });
  });
  assert.is(span!.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.is(span!.parentSpanId, '00f067aa0ba902b7');
  assert.is(span!.name, 'renamed');
  assert.equal(span!.attributes, { a: 1, b: 'x' });
  assert.is(carrier, `00-4bf92f3577b34da6a3ce929d0e0e4736-${span!.spanContext().spanId}-01`);
});

test('no traceparent, or one that is not W3C trace context, starts a new trace', async () => {
  const spans = await traced((tracing) => {
    for (const parent of [undefined, 'garbage', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7']) {
      tracing.startSpan(String(parent), { parent }).end();
    }
  });
  assert.is(spans.length, 4);
  for (const span of spans) {
    assert.is(span.parentSpanId, undefined, `${span.name}: a root`);
    assert.is.not(span.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  }
  assert.is(new Set(spans.map((span) => span.spanContext().traceId)).size, 4, 'each its own trace');
});

test('inside run() the span is the active one, across awaits; outside there is none', async () => {
  await traced(async (tracing) => {
    assert.is(tracing.activeTraceparent(), undefined);
    const span = tracing.startSpan('outer');
    const inside = await span.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return tracing.activeTraceparent();
    });
    assert.is(inside, span.traceparent);
    assert.is(tracing.activeTraceparent(), undefined);
    span.end();
  });
});

test('end marks an error, and a second end changes nothing', async () => {
  const [span] = await traced((tracing) => {
    const started = tracing.startSpan('failing');
    started.end({ error: 'boom' });
    started.end({ name: 'again' });
  });
  assert.is(span!.name, 'failing');
  assert.is(span!.status.code, 2);
  assert.is(span!.status.message, 'boom');
});

test('the traces path is appended to the endpoint, with or without a trailing slash', () => {
  assert.is(tracesUrl('http://127.0.0.1:4318'), 'http://127.0.0.1:4318/v1/traces');
  assert.is(tracesUrl('https://collector.example/otlp/'), 'https://collector.example/otlp/v1/traces');
});

test.run();
