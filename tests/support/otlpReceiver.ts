import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP receiver gets it, decoded. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** The `service.name` of the resource that sent it. */
  serviceName: string | undefined;
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Requests this receiver could not decode (any is a failure of the sender or of this receiver). */
  refused: string[];
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback: POST /v1/traces with OTLP's JSON encoding (ExportTraceServiceRequest, ids as
 * hex), what @opentelemetry/exporter-trace-otlp-http sends. Answers the empty ExportTraceServiceResponse.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const type = request.headers['content-type'] ?? '';
    if (request.method !== 'POST' || request.url !== '/v1/traces' || !type.startsWith('application/json')) {
      refused.push(`${request.method} ${request.url} ${type}`);
      response.writeHead(request.url === '/v1/traces' ? 415 : 404).end();
      return;
    }
    try {
      spans.push(...decodeTraces(JSON.parse(body) as ExportTraceServiceRequest));
    } catch (error) {
      refused.push(`undecodable body: ${error instanceof Error ? error.message : String(error)}`);
      response.writeHead(400).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    refused,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[] }[] }[];
  }[];
}

function decodeTraces(request: ExportTraceServiceRequest): ReceivedSpan[] {
  const decoded: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        if (!/^[0-9a-f]{32}$/.test(span.traceId) || !/^[0-9a-f]{16}$/.test(span.spanId)) throw new Error(`span ${span.name} has ids that are not hex`);
        decoded.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          serviceName: typeof serviceName === 'string' ? serviceName : undefined,
        });
      }
    }
  }
  return decoded;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    attributes[key] = value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue : Number(value.intValue));
  }
  return attributes;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
