import type { Server } from "node:http";
import type { Express } from "express";
import type { ApiConfig } from "../api-config.js";

/** Listens on REVIEWBOT_HOST:REVIEWBOT_PORT with the server's limits for slow clients. */
export async function listen(api: Express, config: ApiConfig): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const server = api.listen(config.REVIEWBOT_PORT, config.REVIEWBOT_HOST, (err?: Error) => {
      if (err === undefined) resolve(server);
      else reject(err);
    });
    // A slow client must not hold a connection open: the whole request within 30 s.
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
  });
}

/** Stops accepting connections, closes idle keep-alive ones, waits for requests in flight. */
export async function stopServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  server.closeIdleConnections();
  await closed;
}
