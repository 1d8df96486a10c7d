// A TCP relay in front of the test database, to play a database that stops answering: its
// sockets can be paused (bytes stay queued in both directions, as with a SIGSTOPped server) and
// resumed, and it can be started late, on a port chosen in advance (a database that is not up yet).
import net from 'node:net';

export interface FreezableRelay {
  url: string;
  freeze(): void;
  thaw(): void;
  /**
   * The database side of every open connection goes away without the client side noticing (a
   * server host that died, a firewall that dropped the state): what the client sends on such a
   * connection is never answered. New connections are relayed as before.
   */
  dropUpstreamsSilently(): void;
  close(): Promise<void>;
}

export async function freezableRelay(targetUrl: string, port = 0): Promise<FreezableRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let frozen = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    // After pipe(), which resumes its source: a connection opened while frozen stays frozen.
    if (frozen) for (const socket of [client, upstream]) socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const relayed = new URL(targetUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as net.AddressInfo).port);
  return {
    url: relayed.href,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    dropUpstreamsSilently() {
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        upstream.removeAllListeners('end');
        upstream.destroy();
        client.on('data', () => {}); // swallowed: no answer, no reset
      }
      pairs.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
