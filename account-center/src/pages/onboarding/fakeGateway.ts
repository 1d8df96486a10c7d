// A stand-in for the gateway in component tests: the `fetch` the typed client is created
// with (createApi(config, fetch)). Each route answers its replies in turn (the last one
// repeats); every request is recorded with its method, path, body and credentials mode.
import type { Schemas } from '../../api.ts';

export interface RecordedCall {
  method: string;
  path: string;
  body: unknown;
  credentials: RequestCredentials;
}

/** A JSON answer, a request that never gets one (the network), or an answer given later. */
export type Reply = { status: number; body?: unknown } | 'network-error' | (() => Promise<Reply>);

export interface FakeGateway {
  fetch: typeof fetch;
  calls: RecordedCall[];
  /** Sets the replies of `METHOD /path` (a path without the query). */
  on(method: string, path: string, ...replies: Reply[]): FakeGateway;
  /** The calls other than GET /v1/me, as "METHOD /path". */
  sequence(): string[];
}

export function fakeGateway(): FakeGateway {
  const calls: RecordedCall[] = [];
  const routes = new Map<string, Reply[]>();
  const gateway: FakeGateway = {
    calls,
    async fetch(input, init) {
      const request = input instanceof Request ? input : new Request(input, init);
      const url = new URL(request.url);
      const text = await request.text();
      calls.push({ method: request.method, path: url.pathname + url.search, body: text ? JSON.parse(text) : undefined, credentials: request.credentials });
      const queue = routes.get(`${request.method} ${url.pathname}`);
      let reply: Reply = queue && queue.length > 0 ? (queue.length > 1 ? queue.shift()! : queue[0]!) : { status: 404, body: problem(404, 'NOT_FOUND', 'No such route in the fake gateway.') };
      while (typeof reply === 'function') reply = await reply();
      if (reply === 'network-error') throw new TypeError('Failed to fetch');
      return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
        status: reply.status,
        headers: { 'Content-Type': reply.status >= 400 ? 'application/problem+json' : 'application/json' },
      });
    },
    on(method, path, ...replies) {
      routes.set(`${method} ${path}`, replies);
      return gateway;
    },
    sequence() {
      return calls.filter((call) => call.path !== '/v1/me').map((call) => `${call.method} ${call.path}`);
    },
  };
  return gateway;
}

export function problem(status: number, code: Schemas['ErrorCode'], detail: string, errors?: Schemas['FieldError'][]): Schemas['Problem'] {
  return { type: `https://docs.auth-gateway.dev/problems/${code.toLowerCase()}`, title: code, status, code, detail, requestId: 'req-test', ...(errors ? { errors } : {}) };
}

/** A reply held back until `release()` (to look at the page while a request is under way). */
export function deferred(reply: Reply): { reply: Reply; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    reply: async () => {
      await released;
      return reply;
    },
    release: () => release(),
  };
}
