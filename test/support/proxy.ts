import net from 'node:net';

/**
 * A TCP proxy in front of the server that can cut the network for real: `cut` resets every open
 * connection (the browser's WebSocket included, which Chromium's offline emulation leaves alone) and
 * refuses new ones until `restore`. Counts what it cut, for the report.
 */
export interface CuttableLink {
  url: string;
  cut(): void;
  restore(): void;
  readonly connectionsCut: number;
  close(): Promise<void>;
}

export async function cuttableLink(target: string): Promise<CuttableLink> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const clients = new Set<net.Socket>();
  let down = false;
  let connectionsCut = 0;
  const server = net.createServer((client) => {
    if (down) return void client.resetAndDestroy();
    const upstream = net.connect(Number(port), hostname);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      down = true;
      connectionsCut += clients.size;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      down = false;
    },
    get connectionsCut() {
      return connectionsCut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
