import { spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { isolatedGitEnv } from "./git-env.js";

/** What the server saw of one request; the credentials themselves are never kept. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly authPresent: boolean;
  readonly authorized: boolean;
  readonly status: number;
}

export interface GitHttpServerOptions {
  /** Directory whose repositories are served: `<url>/<name>` is `<projectRoot>/<name>`. */
  readonly projectRoot: string;
  readonly username: string;
  /** The one password accepted, or a check (a GitHub stand-in accepting the tokens it minted). */
  readonly token: string | ((password: string) => boolean);
  /** HOME for git http-backend (isolated like every fixture git). */
  readonly home: string;
  /** Holds every response this long, to keep the client's processes alive for observation. */
  readonly delayMs?: number;
  /** The address to listen on: 127.0.0.1 unless a container network's gateway must reach it. */
  readonly host?: string;
}

export interface GitHttpServer {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Stands in for GitHub's git hosting: smart HTTP through `git http-backend` (CGI), behind HTTP Basic
 * authentication with one username/token pair. Listens on a free port of `host` (127.0.0.1).
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: RecordedRequest[] = [];
  const authorize = basicAuthCheck(options.username, options.token);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const header = req.headers.authorization;
    const authorized = header !== undefined && authorize(header);
    const record = (status: number): void => {
      requests.push({ method: req.method ?? "", path: url.pathname, query: url.search, authPresent: header !== undefined, authorized, status });
    };
    if (!authorized) {
      record(401);
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
      res.end("authentication required\n");
      return;
    }
    void sleep(options.delayMs ?? 0).then(() => {
      try {
        serveCgi(options, url, req, res, record);
      } catch {
        // A malformed path (bad percent-encoding): answer like a server would, never crash the test.
        record(400);
        res.writeHead(400).end();
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Runs `git http-backend` for one request (RFC 3875 variables in, CGI headers and body out). */
function serveCgi(options: GitHttpServerOptions, url: URL, req: IncomingMessage, res: ServerResponse, record: (status: number) => void): void {
  const cgiEnv: Record<string, string> = {
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GATEWAY_INTERFACE: "CGI/1.1",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: options.username,
    REMOTE_ADDR: req.socket.remoteAddress ?? "",
  };
  const optional: Record<string, string | undefined> = {
    CONTENT_LENGTH: req.headers["content-length"],
    HTTP_CONTENT_ENCODING: req.headers["content-encoding"],
    HTTP_GIT_PROTOCOL: req.headers["git-protocol"] as string | undefined,
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) cgiEnv[name] = value;
  const child = spawn("git", ["http-backend"], { env: isolatedGitEnv(options.home, cgiEnv), stdio: ["pipe", "pipe", "ignore"] });
  req.pipe(child.stdin);
  child.stdin.on("error", () => undefined);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) return;
    headersSent = true;
    const status = writeCgiHead(res, head.subarray(0, end).toString("latin1"));
    record(status);
    res.write(head.subarray(end + 4));
  });
  child.on("close", () => {
    if (!headersSent) {
      record(502);
      res.writeHead(502).end();
    } else {
      res.end();
    }
  });
}

/** Turns CGI response headers into the HTTP status line and headers; returns the status. */
function writeCgiHead(res: ServerResponse, block: string): number {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
    else headers[name] = value;
  }
  res.writeHead(status, headers);
  return status;
}

function basicAuthCheck(username: string, token: GitHttpServerOptions["token"]): (header: string) => boolean {
  if (typeof token === "string") {
    const expected = Buffer.from(`Basic ${Buffer.from(`${username}:${token}`).toString("base64")}`);
    return (header) => sameBytes(Buffer.from(header), expected);
  }
  return (header) => {
    if (!header.startsWith("Basic ")) return false;
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon >= 0 && decoded.slice(0, colon) === username && token(decoded.slice(colon + 1));
  };
}
