// The production high-availability stack of docs/operations.md ("PostgreSQL failover"), on
// loopback: etcd, three PostgreSQL nodes managed by Patroni with synchronous replication, and
// HAProxy routing to whichever node Patroni's REST API says is the primary. All from Debian
// (patroni, etcd-server, haproxy, postgresql-15). PostgreSQL refuses to run as root, so etcd and
// Patroni (and the PostgreSQL it starts) run as the `postgres` user, in a temporary folder it
// owns; every process is killed by stop(), and the folder removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort } from '../../src/db/embedded.ts';

export const PG_BIN_DIR = '/usr/lib/postgresql/15/bin';
const SUPERUSER_PASSWORD = 'failover-test-superuser';

export interface PatroniMember {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

export interface HaStack {
  /** postgres://… through HAProxy: the one address the gateway is given. */
  databaseUrl: (database: string) => string;
  nodes: { name: string; pgPort: number; restPort: number; dataDir: string }[];
  members(): Promise<PatroniMember[]>;
  leader(): Promise<string | null>;
  /** SIGKILL to the postmaster of that node (its Patroni stays up and notices the crash). */
  killPostmaster(name: string): Promise<number>;
  /** The lines each process wrote, for a failure report. */
  logs(): string;
  stop(): Promise<void>;
}

/** Which of the packages are missing (empty when the stack can run). */
export function missingPackages(): string[] {
  const have = (file: string) => {
    try {
      execFileSync('test', ['-x', file]);
      return true;
    } catch {
      return false;
    }
  };
  const wanted: [string, string][] = [
    ['patroni', '/usr/bin/patroni'],
    ['etcd-server', '/usr/bin/etcd'],
    ['haproxy', '/usr/sbin/haproxy'],
    ['postgresql-15', `${PG_BIN_DIR}/postgres`],
  ];
  return wanted.filter(([, file]) => !have(file)).map(([name]) => name);
}

export async function startHaStack(options: { log: (line: string) => void }): Promise<HaStack> {
  const postgresUser = execFileSync('id', ['-u', 'postgres']).toString().trim();
  const uid = Number(postgresUser);
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  const folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-failover-'));
  await chmod(folder, 0o755);
  await chown(folder, uid, gid);
  const children: { name: string; child: ChildProcess; output: string[] }[] = [];
  const run = (name: string, command: string, args: string[], asPostgres: boolean) => {
    const child = spawn(command, args, {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folder, LANG: 'C.UTF-8', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asPostgres && userInfo().uid === 0 ? { uid, gid } : {}),
    });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) output.push(line);
      if (output.length > 400) output.splice(0, output.length - 400);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.push({ name, child, output });
    return child;
  };

  const stop = async () => {
    // HAProxy first, then Patroni (it stops its PostgreSQL), then etcd; SIGKILL whatever lingers.
    for (const group of [['haproxy'], ['pg1', 'pg2', 'pg3'], ['etcd']]) {
      const these = children.filter((c) => group.includes(c.name) && c.child.exitCode === null && c.child.signalCode === null);
      await Promise.all(these.map((c) => stopChild(c.child, 8000)));
    }
    // A postmaster whose Patroni died first would stay: kill any left in our data folders.
    for (const node of nodes) await killPostmasterOf(node.dataDir).catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
  };

  const nodes = await Promise.all(['pg1', 'pg2', 'pg3'].map(async (name) => ({ name, pgPort: await freePort(), restPort: await freePort(), dataDir: path.join(folder, name, 'data') })));
  try {
    const etcdClient = await freePort();
    const etcdPeer = await freePort();
    const etcdDir = path.join(folder, 'etcd');
    await mkdir(etcdDir);
    await chown(etcdDir, uid, gid);
    run('etcd', '/usr/bin/etcd', [
      '--name', 'failover-test', '--data-dir', etcdDir,
      '--listen-client-urls', `http://127.0.0.1:${etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`,
      '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster', `failover-test=http://127.0.0.1:${etcdPeer}`,
    ], true);
    await waitFor('etcd', 20_000, async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`).then((r) => r.json() as Promise<{ health?: string }>, () => null))?.health === 'true');
    options.log(`etcd on 127.0.0.1:${etcdClient}`);

    for (const node of nodes) {
      const dir = path.join(folder, node.name);
      await mkdir(dir);
      await chown(dir, uid, gid);
      const config = patroniConfig(node, etcdClient, dir);
      await writeFile(path.join(dir, 'patroni.yml'), config);
      await chown(path.join(dir, 'patroni.yml'), uid, gid);
      run(node.name, '/usr/bin/patroni', [path.join(dir, 'patroni.yml')], true);
      // The first node bootstraps the cluster (initdb); the others clone it once it leads.
      if (node === nodes[0]) await waitFor('the first Patroni node to lead', 60_000, async () => (await fetch(`http://127.0.0.1:${node.restPort}/primary`)).status === 200);
    }
    const members = async () => {
      for (const node of nodes) {
        const cluster = await fetch(`http://127.0.0.1:${node.restPort}/cluster`).then((r) => r.json() as Promise<{ members: PatroniMember[] }>, () => null);
        if (cluster) return cluster.members;
      }
      return [];
    };
    await waitFor('a leader, a synchronous standby and a streaming replica', 90_000, async () => {
      const list = await members();
      // Patroni 3.0 reports a replica's state as `running` (later versions: `streaming`).
      const up = (m: PatroniMember) => m.state === 'running' || m.state === 'streaming';
      return list.some((m) => m.role === 'leader' && up(m)) && list.some((m) => m.role === 'sync_standby' && up(m)) && list.some((m) => m.role === 'replica' && up(m));
    });

    const haPort = await freePort();
    const haStats = await freePort();
    const haConfig = path.join(folder, 'haproxy.cfg');
    await writeFile(haConfig, haproxyConfig(nodes, haPort, haStats));
    run('haproxy', '/usr/sbin/haproxy', ['-db', '-f', haConfig], false);
    const databaseUrl = (database: string) => `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${haPort}/${database}`;
    await waitFor('HAProxy to route to the primary', 20_000, async () => {
      const csv = await fetch(`http://127.0.0.1:${haStats}/stats;csv`).then((r) => r.text(), () => '');
      // HAProxy starts with every server UP until its first checks: wait until they have run and
      // the replicas are DOWN, or a connection right after this could reach a replica.
      const servers = csv.split('\n').filter((line) => line.startsWith('primary,pg'));
      return servers.filter((line) => line.includes(',UP,')).length === 1 && servers.filter((line) => line.includes(',DOWN,')).length === nodes.length - 1;
    });
    options.log(`HAProxy on 127.0.0.1:${haPort} (stats 127.0.0.1:${haStats}); nodes ${nodes.map((n) => `${n.name}=${n.pgPort}`).join(', ')}`);

    return {
      databaseUrl,
      nodes,
      members,
      async leader() {
        return (await members()).find((m) => m.role === 'leader')?.name ?? null;
      },
      async killPostmaster(name: string) {
        const node = nodes.find((n) => n.name === name)!;
        return killPostmasterOf(node.dataDir);
      },
      logs: () => children.map((c) => `--- ${c.name}\n${c.output.slice(-60).join('\n')}`).join('\n'),
      stop,
    };
  } catch (error) {
    options.log(children.map((c) => `--- ${c.name}\n${c.output.slice(-40).join('\n')}`).join('\n'));
    await stop();
    throw error;
  }
}

/** SIGKILL to the postmaster whose pid is the first line of postmaster.pid; returns the pid. */
async function killPostmasterOf(dataDir: string): Promise<number> {
  const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  process.kill(pid, 'SIGKILL');
  return pid;
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function waitFor(what: string, timeoutMs: number, test: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await test().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

/**
 * One node's Patroni configuration: the sample of docs/operations.md with loopback ports and
 * short timings (loop_wait 1 s) so that the test's failover is quick. primary_start_timeout 0:
 * a crashed primary fails over to the synchronous standby at once instead of being restarted
 * in place (the default waits 300 s for the restart).
 */
function patroniConfig(node: { name: string; pgPort: number; restPort: number; dataDir: string }, etcdPort: number, dir: string): string {
  return `scope: gateway-failover-test
name: ${node.name}
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd3:
  hosts: 127.0.0.1:${etcdPort}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 3
    maximum_lag_on_failover: 1048576
    primary_start_timeout: 0
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 100
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${node.dataDir}
  bin_dir: ${PG_BIN_DIR}
  pgpass: ${path.join(dir, 'pgpass')}
  authentication:
    superuser:
      username: postgres
      password: ${SUPERUSER_PASSWORD}
    replication:
      username: replicator
      password: failover-test-replicator
    rewind:
      username: postgres
      password: ${SUPERUSER_PASSWORD}
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
  parameters:
    unix_socket_directories: '${dir}'
    shared_buffers: 32MB
    fsync: 'on'
tags:
  nofailover: false
  noloadbalance: false
`;
}

/**
 * HAProxy: one TCP listener for the gateway; each node is checked on Patroni's REST API
 * (GET /primary answers 200 only on the leader), every 500 ms; a node marked down has its client
 * connections cut (on-marked-down shutdown-sessions), so nothing keeps writing to a demoted primary.
 */
function haproxyConfig(nodes: { name: string; pgPort: number; restPort: number }[], port: number, statsPort: number): string {
  return `global
    maxconn 500

defaults
    mode tcp
    log global
    retries 2
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 2s

listen stats
    mode http
    bind 127.0.0.1:${statsPort}
    stats enable
    stats uri /stats

listen primary
    bind 127.0.0.1:${port}
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.pgPort} maxconn 100 check port ${n.restPort}`).join('\n')}
`;
}
