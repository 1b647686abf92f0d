import { createServer, type Socket } from "node:net";

export interface ConnectionRecorder {
  readonly port: number;
  /** Connections accepted so far, each with the first bytes the client sent. */
  readonly connections: readonly { readonly firstBytes: string }[];
  close(): Promise<void>;
}

/**
 * A TCP listener on 127.0.0.1 that accepts and records every connection and answers nothing:
 * the "attacker's server" that a hostile `.lfsconfig` or submodule URL would point at.
 */
export async function startConnectionRecorder(): Promise<ConnectionRecorder> {
  const connections: { firstBytes: string }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const connection = { firstBytes: "" };
    connections.push(connection);
    sockets.add(socket);
    socket.on("data", (chunk: Buffer) => {
      if (connection.firstBytes.length < 200) connection.firstBytes += chunk.toString("latin1").slice(0, 200);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("listener has no TCP address");
  return {
    port: address.port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
