import { isIP } from "node:net";
import { chmod, copyFile, mkdir, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { AppError } from "@reviewbot/core/errors";
import { REGISTRY_FILES } from "@reviewbot/policy/install-plan";
import { openTunnel } from "./registry-tunnel.js";

const ASSETS = new URL("../../assets/", import.meta.url);
const DEFAULT_MAX_TUNNELS = 32;
const DEFAULT_IDLE_MS = 60_000;
const DEFAULT_CONNECT_MS = 15_000;

/** One CONNECT the proxy answered, for the worker's log. */
export interface RegistryDecision {
  readonly target: string;
  readonly allowed: boolean;
  readonly reason: string;
}

export interface RegistryProxyOptions {
  /**
   * The directory mounted read-only into install sandboxes: it gets the socket, the forwarders
   * and the CA bundle. Must lie under the container engine's state directory.
   */
  readonly dir: string;
  /** Registry host names (the operator's `installRegistries`); only `<host>:443` is tunnelled. */
  readonly allowedHosts: readonly string[];
  /** The host's CA bundle: outbound HTTPS here is TLS-intercepted by a proxy the host trusts. */
  readonly caBundle: string;
  readonly maxTunnels?: number;
  readonly idleTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly onDecision?: (decision: RegistryDecision) => void;
}

/**
 * The worker's allowlisting HTTP CONNECT proxy for install hooks, on a unix socket. An install
 * sandbox keeps `--network none` (loopback only) and reaches the proxy only through the socket
 * bind-mounted into it; the proxy tunnels `CONNECT <allowed host>:443` and answers everything
 * else — another host or port, an IP literal, a plain HTTP request — with 403. TLS stays end to
 * end between the installer and the registry: the proxy sees host names, never content.
 */
export class RegistryProxy {
  readonly dir: string;
  readonly #server: Server;
  readonly #tunnels = new Set<Duplex>();

  private constructor(dir: string, server: Server) {
    this.dir = dir;
    this.#server = server;
  }

  /**
   * Prepares the directory (forwarders, CA bundle) and listens on `<dir>/proxy.sock`.
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` when the CA bundle or the assets cannot be copied or
   *   the socket cannot be bound.
   */
  static async start(options: RegistryProxyOptions): Promise<RegistryProxy> {
    const allowed = new Set(options.allowedHosts);
    const socketPath = join(options.dir, REGISTRY_FILES.socket);
    try {
      await mkdir(options.dir, { recursive: true, mode: 0o755 });
      await chmod(options.dir, 0o755);
      await copyFile(new URL("registry-forward.mjs", ASSETS), join(options.dir, REGISTRY_FILES.nodeForwarder));
      await copyFile(new URL("registry-forward.py", ASSETS), join(options.dir, REGISTRY_FILES.pythonForwarder));
      await copyFile(options.caBundle, join(options.dir, REGISTRY_FILES.caBundle));
      for (const file of [REGISTRY_FILES.nodeForwarder, REGISTRY_FILES.pythonForwarder, REGISTRY_FILES.caBundle]) {
        await chmod(join(options.dir, file), 0o644);
      }
      await rm(socketPath, { force: true });
    } catch (err) {
      throw new AppError("SANDBOX_UNAVAILABLE", `the registry proxy directory could not be prepared: ${(err as Error).message}`, { cause: err });
    }
    const server = createServer((_req, res) => {
      // Registries are HTTPS: a plain request is never forwarded, whatever its target.
      options.onDecision?.({ target: "plain http", allowed: false, reason: "only CONNECT is served" });
      res.writeHead(403, { "content-type": "text/plain", connection: "close" }).end("only CONNECT to the package registry is allowed\n");
    });
    const proxy = new RegistryProxy(options.dir, server);
    server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
      proxy.#connect(req, client, head, allowed, options);
    });
    server.on("clientError", (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) => {
        reject(new AppError("SANDBOX_UNAVAILABLE", `the registry proxy could not listen: ${err.message}`, { cause: err }));
      });
      server.listen(socketPath, () => {
        resolve();
      });
    });
    // Whichever uid the install runs as must be able to connect; the directory is its only way in.
    await chmod(socketPath, 0o666);
    return proxy;
  }

  /** Stops listening and cuts every open tunnel; idempotent. */
  async close(): Promise<void> {
    for (const tunnel of this.#tunnels) tunnel.destroy();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) =>
      this.#server.close(() => {
        resolve();
      }),
    );
  }

  #connect(req: IncomingMessage, client: Duplex, head: Buffer, allowed: ReadonlySet<string>, options: RegistryProxyOptions): void {
    const target = req.url ?? "";
    const refusal = refusalOf(target, allowed) ?? (this.#tunnels.size >= (options.maxTunnels ?? DEFAULT_MAX_TUNNELS) ? "too many tunnels" : undefined);
    options.onDecision?.({ target: target.slice(0, 300), allowed: refusal === undefined, reason: refusal ?? "allowlisted registry" });
    if (refusal !== undefined) {
      client.on("error", () => undefined).end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusal}\n`);
      return;
    }
    const [host = ""] = target.split(":");
    this.#tunnels.add(client);
    client.once("close", () => this.#tunnels.delete(client));
    openTunnel(client, head, host, {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_MS,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
    });
  }
}

const TARGET = /^([a-z0-9.-]{1,253}):(\d{1,5})$/;

/** Why a CONNECT target is refused, or undefined for `<allowlisted host>:443`. */
function refusalOf(target: string, allowed: ReadonlySet<string>): string | undefined {
  const match = TARGET.exec(target);
  if (match === null) return "not a host:port this proxy serves";
  const [, host = "", port = ""] = match;
  if (isIP(host) !== 0) return "IP literals are not allowed";
  if (!allowed.has(host)) return `${host} is not an allowlisted registry`;
  if (port !== "443") return "only port 443 is allowed";
  return undefined;
}
