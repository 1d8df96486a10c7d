// Where a server's time goes, from a V8 CPU profile of one measured run
// (`BENCH_CPU_PROF=gateway npm run bench` writes bench-results/profiles/<server>-<endpoint>-round<n>.cpuprofile).
//
//   node scripts/bench/profile-summary.ts <file.cpuprofile> [requests] [top]
//
// With the number of answered requests of that run (bench-results/latest.json,
// runs[].expected) the layers are also given in microseconds per request.
//
// A `.heapprofile` (BENCH_HEAP_PROF=1) is summarised the same way, in bytes allocated
// (per request with the count): by layer, by package and by allocating function.
//
// Layers: every sample is charged to the innermost frame on its stack that
// belongs to a known layer (request logging, openapi-backend, knex, …), so a
// library's helpers (lodash under openapi-backend, sonic-boom under pino) count
// for the layer that called them. Socket write system calls and garbage
// collection are layers of their own. The V8 profiler samples the main thread
// at fixed wall-clock intervals: on a saturated machine a system call that gets
// pre-empted looks longer than the CPU it used.

import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Innermost match wins, so list a library before the libraries it uses only when it calls them. */
const LAYERS: [layer: string, test: RegExp][] = [
  ['request logging (pino-http, pino, redaction)', /node_modules\/(pino-http|pino|@pinojs\/redact|sonic-boom|fast-redact|pino-std-serializers)\/|\/src\/logger\.[jt]s/],
  ['openapi-backend (routing, parsing, Ajv validation)', /node_modules\/(openapi-backend|ajv|ajv-formats|fast-uri)\/|\/src\/api\/(backend|security)\.[jt]s/],
  ['openid-client (authorize URL, PKCE challenge)', /node_modules\/(openid-client|oauth4webapi|jose)\/|\/src\/oidc\//],
  ['knex (query building, tarn pool)', /node_modules\/(knex|tarn)\//],
  ['pg driver', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|pg-connection-string)\//],
  ['express, router and middleware (cors, cookie-parser, body-parser)', /node_modules\/(express|router|body-parser|cors|cookie-parser|cookie|finalhandler|send|on-finished|qs|raw-body|type-is|content-type|vary|accepts|negotiator|mime-types|iconv-lite|parseurl|path-to-regexp|serve-static|depd|statuses|encodeurl|escape-html)\/|\/src\/(app|api\/docs)\.[jt]s/],
  ['credential crypto (digests, AES-GCM, random)', /\/src\/security\/crypto\.[jt]s/],
  ['service and repository code', /\/src\/(services|operations|db|errors|security)\/|\/scripts\/bench\/bare\.[jt]s/],
];

function layerOf(stack: ProfileNode['callFrame'][]): string {
  const top = stack[0]!;
  if (top.functionName === '(garbage collector)') return 'garbage collection';
  if (!top.url && ['writev', 'writeLatin1String', 'writeUtf8String', 'writeBuffer'].includes(top.functionName)) return 'socket writes (system calls)';
  for (const frame of stack) {
    for (const [layer, test] of LAYERS) if (test.test(frame.url)) return layer;
  }
  return 'node:http, event loop and other Node.js internals';
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  const all = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  if (all.length > 0) return `pkg ${all[all.length - 1]![1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const local = /\/(src|scripts|migrations|generated)\/(.*)$/.exec(url);
  return local ? `app ${local[1]}/${local[2]}` : url;
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated in the window, charged like CPU samples (innermost known layer, then package and function). */
function summariseHeap(root: HeapNode, requests: number, top: number): void {
  const layers = new Map<string, number>();
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes);
  const walk = (node: HeapNode, stack: ProfileNode['callFrame'][]) => {
    const here = [node.callFrame, ...stack];
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(layers, layerOf(here), node.selfSize);
      add(packages, packageOf(node.callFrame.url, node.callFrame.functionName), node.selfSize);
      const where = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|scripts)\//, '$1/');
      add(functions, `${node.callFrame.functionName || '(anonymous)'} ${where}${where ? `:${node.callFrame.lineNumber + 1}` : ''}`, node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(root, []);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0).padStart(8)} KiB`;
  const share = (bytes: number) => `${((100 * bytes) / total).toFixed(1).padStart(5)}%`;
  const perRequest = (bytes: number) => (requests > 0 ? `${(bytes / requests / 1024).toFixed(1).padStart(6)} KiB/req` : '');
  process.stdout.write(`allocated ${kb(total).trim()} ${perRequest(total).trim()} (sampled)\n`);
  for (const [title, map, limit] of [['by layer', layers, LAYERS.length + 3], ['by package / module', packages, top], ['by allocating function', functions, top]] as const) {
    process.stdout.write(`\n${title}\n`);
    for (const [name, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) process.stdout.write(`${kb(bytes)} ${share(bytes)} ${perRequest(bytes)}  ${name}\n`);
  }
}

async function main(): Promise<void> {
  const [file, requestsText, topText] = process.argv.slice(2);
  if (!file) throw new Error('usage: node scripts/bench/profile-summary.ts <file.cpuprofile> [requests] [top]');
  const requests = requestsText ? Number(requestsText) : 0;
  const top = Number(topText ?? 20);
  if (file.endsWith('.heapprofile')) {
    const heap = JSON.parse(await readFile(file, 'utf8')) as { head: HeapNode };
    process.stdout.write(`${file}\n`);
    return summariseHeap(heap.head, requests, top);
  }
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const layers = new Map<string, number>();
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const weight = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += weight;
      return;
    }
    busy += weight;
    const stack: ProfileNode['callFrame'][] = [];
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) stack.push(byId.get(current)!.callFrame);
    const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + weight);
    add(layers, layerOf(stack));
    add(packages, packageOf(node.callFrame.url, node.callFrame.functionName));
    const where = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|scripts)\//, '$1/');
    add(functions, `${node.callFrame.functionName || '(anonymous)'} ${where}${where ? `:${node.callFrame.lineNumber + 1}` : ''}`);
  });

  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const perRequest = (us: number) => (requests > 0 ? `${(us / requests).toFixed(0).padStart(5)} µs/req` : '');
  const print = (title: string, map: Map<string, number>, limit: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      process.stdout.write(`${ms(us)} ${pct(us)} ${perRequest(us)}  ${name}\n`);
    }
  };
  process.stdout.write(
    `${file}\nmain thread busy ${ms(busy).trim()} ${perRequest(busy).trim()}, idle ${ms(idle).trim()}, of ${ms(profile.endTime - profile.startTime).trim()}\n`,
  );
  print('by layer (innermost known layer on the stack)', layers, LAYERS.length + 3);
  print('self time by package / module', packages, top);
  print('self time by function', functions, top);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
