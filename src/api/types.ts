import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { operations } from '../../generated/gateway.ts';
import type { AppDeps } from '../deps.ts';
import type { OperationId, Principal } from '../domain/types.ts';

export type { OperationId };

type Parameters<K extends OperationId> = operations[K] extends { parameters: infer P } ? P : never;
type Pick<P, Where extends string> = P extends { [W in Where]?: infer V } ? (undefined extends V ? NonNullable<V> | Record<string, never> : V) : never;

export type QueryOf<K extends OperationId> = Pick<Parameters<K>, 'query'>;
export type PathOf<K extends OperationId> = Pick<Parameters<K>, 'path'>;
export type BodyOf<K extends OperationId> = operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : undefined;

type Responses<K extends OperationId> = operations[K]['responses'];
/** Union of the JSON bodies the contract allows for an operation's 2xx responses. */
export type SuccessBodyOf<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends 200 | 201 | 202
    ? Responses<K>[S] extends { content: { 'application/json': infer B } } ? B : never
    : never;
}[keyof Responses<K>];

/** The media types other than JSON that the contract allows for an operation's 200 response (an image). */
export type BinaryMediaOf<K extends OperationId> = K extends OperationId
  ? Responses<K> extends { 200: { content: infer C } } ? Exclude<keyof C, 'application/json'> & string : never
  : never;

/** An image answer, for the operations whose contract documents one (only those: it would blur the others' replies). */
type BinaryReply<K extends OperationId> = [BinaryMediaOf<K>] extends [never]
  ? never
  : { status: 200; contentType: BinaryMediaOf<K>; bytes: Buffer; headers?: Record<string, string> };

/**
 * Operations that answer a stream (a document too large to hold in memory: the data export).
 * Listed by name so that no other operation's reply can skip the contract's body check.
 */
export type StreamedOperation = 'downloadDataExport';

/** A streamed answer of a media type the contract documents for the operation's 200. */
type StreamReply<K extends OperationId> = K extends StreamedOperation
  ? Responses<K> extends { 200: { content: infer C } } ? { status: 200; contentType: keyof C & string; stream: Readable; headers?: Record<string, string> } : never
  : never;

export type { Permission, Principal } from '../domain/types.ts';

/** What an operation answers; the dispatcher validates it (in tests) and sends it. */
export type Reply<K extends OperationId = OperationId> =
  | { status: 200 | 201 | 202; body: SuccessBodyOf<K>; headers?: Record<string, string> }
  | BinaryReply<K>
  | StreamReply<K>
  | { status: 204; headers?: Record<string, string> }
  | { status: 302 | 303; location: URL; headers?: Record<string, string> }
  | { status: 503; body: unknown; headers?: Record<string, string> };

export interface OperationContext<K extends OperationId> {
  operationId: K;
  query: QueryOf<K>;
  params: PathOf<K>;
  body: BodyOf<K>;
  principal: Principal | null;
  /** Platform Basic credentials, parsed (not yet verified) for platformBasicAuth operations. */
  platformCredentials: { clientId: string; clientSecret: string } | null;
  requestId: string;
  log: Logger;
  req: Request;
  res: Response;
}

export type OperationHandler<K extends OperationId> = (ctx: OperationContext<K>, deps: AppDeps) => Promise<Reply<K>>;

export type HandlerMap = { [K in OperationId]: OperationHandler<K> };
