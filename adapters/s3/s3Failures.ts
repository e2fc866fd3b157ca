// How an S3 call failed, told apart from the SDK's errors: "the object is not there" is an answer, while a network
// failure, a timeout, a 5xx or a credential problem means the store cannot answer now.

interface SdkErrorShape {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

function shapeOf(error: unknown): SdkErrorShape {
  return typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
}

export function httpStatusOf(error: unknown): number | undefined {
  return shapeOf(error).$metadata?.httpStatusCode;
}

/** The object (or, for HeadObject, possibly its bucket: a HEAD answer has no body to tell them apart) is missing. */
export function isObjectMissing(error: unknown): boolean {
  const { name } = shapeOf(error);
  return name === 'NoSuchKey' || name === 'NotFound' || (httpStatusOf(error) === 404 && name !== 'NoSuchBucket');
}

/**
 * Worth another upload attempt: no HTTP answer at all (refused, reset, DNS, our deadline), 408, 429 or a 5xx.
 * Other 4xx answers (missing bucket, bad credentials, access denied) will not change by retrying a second later.
 */
export function isTransientFailure(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status === undefined) return true;
  return status === 408 || status === 429 || status >= 500;
}

/** One line for logs: the SDK's error name, the HTTP status and the message, without the request's headers. */
export function describeFailure(error: unknown): string {
  const { name, code } = shapeOf(error);
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const label = name ?? code ?? 'Error';
  return `${label}${status ? ` (HTTP ${status})` : ''}: ${message || 'no message'}`;
}
