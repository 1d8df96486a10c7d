// `node --expose-gc scripts/memory/validators.ts [--lazy]`: what openapi-backend costs for the
// gateway's contract, with every operation's validators compiled at init (quick: false) or compiled at each operation's first request (--lazy: openapi-backend's
// quick mode, the gateway's setting, whose only other effects are a synchronous dereference and no definition check,
// which the gateway disables anyway). Prints RSS and heap after a full GC, the init time, and
// the cost of the first and later validations of the login's operations.
import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Request } from 'openapi-backend';
import { contractBackendOptions } from '../../src/api/backend.ts';

const gc = (globalThis as { gc?: () => void }).gc!;
const lazy = process.argv.includes('--lazy');
const MB = (bytes: number) => (bytes / 1048576).toFixed(1);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const show = (step: string) => {
  gc();
  const m = process.memoryUsage();
  console.log(`${step}: rss ${MB(rss())} MB, heapUsed ${MB(m.heapUsed)} MB, heapTotal ${MB(m.heapTotal)} MB`);
};
const api = new OpenAPIBackend(contractBackendOptions({ quick: lazy }));
api.validateDefinition = () => api.document;
api.register('notFound', () => 404);
let t = performance.now();
await api.init();
console.log(`init (${lazy ? 'lazy' : 'eager'}): ${(performance.now() - t).toFixed(0)} ms`);
show('after init');
const requests: Request[] = [
  { method: 'GET', path: '/v1/auth/start', query: { platform: 'DEMO', returnTo: 'https://app.example.com/' }, headers: {} },
  { method: 'GET', path: '/v1/auth/callback', query: { code: 'c', state: 's' }, headers: {} },
  { method: 'POST', path: '/v1/auth/exchange', headers: { 'content-type': 'application/json' }, body: { code: 'x'.repeat(43), platform: 'DEMO' } },
];
for (const round of ['first', 'second', 'thousandth']) {
  const times: string[] = [];
  for (const request of requests) {
    const n = round === 'thousandth' ? 1000 : 1;
    t = performance.now();
    for (let i = 0; i < n; i++) {
      const operation = api.router.matchOperation(request);
      if (operation) api.validator.validateRequest(request, operation);
    }
    times.push(`${request.method} ${request.path} ${(((performance.now() - t) * 1000) / n).toFixed(0)} µs`);
  }
  console.log(`${round} validation: ${times.join(', ')}`);
}
show('after the login operations ran');
