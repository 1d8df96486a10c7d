// Traces (OTEL_*) and the metrics listener's token (METRICS_TOKEN).

import { checkHttpUrl, type Reader } from './reader.ts';

/** OTLP/HTTP trace export, with the standard OpenTelemetry variable names. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly tracesUrl: string;
  /** OTEL_SERVICE_NAME, default `auth-gateway`. */
  readonly serviceName: string;
}

/**
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: traces go to `<it>/v1/traces`) or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full traces URL, used as is), as the OpenTelemetry
 * specification defines them; OTEL_SERVICE_NAME names the service. Neither set: null.
 */
export function readTracing(reader: Reader): TracingConfig | null {
  const traces = reader.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = reader.raw('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (traces === undefined && base === undefined) return null;
  const name = traces !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = (traces ?? base)!;
  const problem = checkHttpUrl(raw);
  if (problem !== null) {
    reader.problems.push(`${name} is refused: ${problem}`);
    return null;
  }
  const tracesUrl = traces ?? `${raw.replace(/\/+$/, '')}/v1/traces`;
  return { tracesUrl, serviceName: reader.pattern('OTEL_SERVICE_NAME', /^\S{1,200}$/, 'must be a name (1..200 characters, no whitespace)') ?? 'auth-gateway' };
}

/** A bearer secret: 32..256 printable ASCII characters, never echoed in the refusal. */
export function readSecretToken(reader: Reader, name: string): string | null {
  const raw = reader.raw(name);
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]{32,256}$/.test(raw)) {
    reader.problems.push(`${name} is refused: must be 32..256 printable characters without spaces (e.g. openssl rand -base64 32)`);
    return null;
  }
  return raw;
}
