import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, connect, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";

// Addresses of this host itself: an allowlisted name that resolved here (a poisoned resolver, a
// hosts entry) must not turn the proxy into a way to the worker's own services.
const HOST_ITSELF = new BlockList();
HOST_ITSELF.addSubnet("127.0.0.0", 8, "ipv4");
HOST_ITSELF.addSubnet("0.0.0.0", 8, "ipv4");
HOST_ITSELF.addSubnet("169.254.0.0", 16, "ipv4");
HOST_ITSELF.addAddress("::1", "ipv6");
HOST_ITSELF.addAddress("::", "ipv6");
HOST_ITSELF.addSubnet("fe80::", 10, "ipv6");
HOST_ITSELF.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

/**
 * Resolves like `dns.lookup` (one address, or all of them when net's family autoselection asks),
 * dropping addresses of the host itself (loopback, link-local, unspecified); none left is an error.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, found: LookupAddress[]) => {
    const usable = err === null ? found.filter((entry) => !HOST_ITSELF.check(entry.address, entry.family === 6 ? "ipv6" : "ipv4")) : [];
    const first = usable[0];
    if (err !== null || first === undefined) {
      const refusal = err ?? Object.assign(new Error(`${hostname} resolved only to addresses of this host`), { code: "EREFUSED" });
      callback(refusal, "", 0);
      return;
    }
    if (options.all === true) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, usable);
    else callback(null, first.address, first.family);
  });
};

export interface TunnelTimeouts {
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/**
 * Connects to `host:443` for an accepted CONNECT, answers 200 (or 502) to the client and pipes
 * both ways until either side closes or goes idle. `head` is what the client sent after the
 * request line and headers (the start of its TLS handshake, usually empty).
 */
export function openTunnel(client: Duplex, head: Buffer, host: string, timeouts: TunnelTimeouts): void {
  const upstream = connect({ host, port: 443, lookup: guardedLookup, timeout: timeouts.connectTimeoutMs });
  let established = false;
  const close = (): void => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close).on("close", close);
  upstream.on("error", (err) => {
    // Before the tunnel exists the client still speaks HTTP: tell it why, then let it go.
    if (!established) client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${host}: ${err.message}\n`);
    else close();
  });
  upstream.on("close", () => {
    if (established) close();
  });
  upstream.on("timeout", () => {
    upstream.destroy(new Error(established ? "idle" : "connect timeout"));
  });
  upstream.once("connect", () => {
    established = true;
    upstream.setTimeout(timeouts.idleTimeoutMs);
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
}
