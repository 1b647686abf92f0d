import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface PageServer {
  readonly port: number;
  /** Paths requested so far, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * A tiny HTTP server on 127.0.0.1 that serves fixed HTML pages by path (404 otherwise): a page
 * of another origin for browser tests, e.g. one that forges a request to the dashboard.
 */
export async function startPageServer(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://page.invalid").pathname;
    requests.push(path);
    const page = pages[path];
    response.setHeader("Cache-Control", "no-store");
    if (page === undefined) {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
