import { lookup as dnsLookup } from "node:dns/promises";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { AppError } from "@reviewbot/core/errors";
import { parseAllowlistedUrl, type AllowlistedUrl } from "./allowlisted-url.js";
import { isPublicAddress } from "./is-public-address.js";
import { pinnedLookup, resolveVettedAddresses, type ResolveHost, type VettedAddresses } from "./vetted-addresses.js";

export type { ResolveHost } from "./vetted-addresses.js";

export const DEFAULT_FETCH_MAX_BYTES = 512 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;

export interface FetchAllowlistedOptions {
  /** The operator's `REVIEWBOT_LLM_FETCH_HOSTS`: exact ASCII host names. Empty refuses every URL. */
  readonly hosts: readonly string[];
  /** The most body bytes read; the rest is cut (`truncated`). */
  readonly maxBytes?: number;
  /** The deadline of the whole exchange: DNS, connection, TLS, headers and body. */
  readonly timeoutMs?: number;
  /** DNS; `node:dns/promises` `lookup` with `all: true` unless a test stands in for it. */
  readonly lookup?: ResolveHost;
  /** The address policy; public unicast only (`isPublicAddress`) unless a test allows loopback. */
  readonly isAllowedAddress?: ((ip: string) => boolean) | undefined;
  /**
   * Test only: roots to trust *instead of* Node's bundled ones, so a test can serve a self-signed
   * certificate. Certificate and host name checks stay on either way; production leaves it unset.
   */
  readonly ca?: string | Buffer | undefined;
  /** The caller's cancellation: once it aborts, the fetch rejects with its reason. */
  readonly signal?: AbortSignal;
}

/** An allowlisted page, as the model gets it. */
export interface FetchedPage {
  /** The URL fetched, without its fragment. */
  readonly url: string;
  /** Any status but a redirect (2xx, 4xx, 5xx: the model reads the error page). */
  readonly status: number;
  /** The media type, lower case and without parameters: `text/html`. */
  readonly contentType: string;
  /** The body (at most `maxBytes` of it) decoded as UTF-8, invalid sequences as U+FFFD. */
  readonly text: string;
  /** The body ran past `maxBytes`; the rest was never read. */
  readonly truncated: boolean;
}

const resolveAll: ResolveHost = (host) => dnsLookup(host, { all: true, verbatim: true });

/** `text/*`, JSON and XML, with structured-syntax suffixes (`application/vnd.api+json`, `image/svg+xml`). */
const TEXT_LIKE = /^(?:text\/[^\s/]+|application\/(?:json|xml)|[^\s/]+\/[^\s/]+\+(?:json|xml))$/;
const ACCEPT = "text/*, application/json, application/xml, application/*+json, application/*+xml";

const refuse = (reason: string) => new AppError("POLICY_DENIED", `fetch_url: ${reason}`);

/**
 * Fetches one URL for the model's `fetch_url` tool, for the api's broker. The model's input is
 * the PR's, so the URL is an attacker's: it must be `https:` to an allowlisted host name (see
 * `parseAllowlistedUrl`), every address the name resolves to must pass the address policy, and the
 * connection goes to those vetted addresses only, with the certificate checked against the name.
 * Redirects are refused, never followed (a redirect to anywhere would undo the allowlist); bodies
 * are cut at `maxBytes`, only text-like types are read, and the request carries no cookie or
 * credential: `accept` and `user-agent` only. Nothing is logged; the caller scrubs and logs.
 *
 * @throws AppError `POLICY_DENIED` (the message is addressed to the model and names the rule),
 *   `FETCH_FAILED` (DNS, connection, TLS or the deadline; retryable). The caller's `signal` reason
 *   once it aborts.
 */
export async function fetchAllowlisted(url: string, options: FetchAllowlistedOptions): Promise<FetchedPage> {
  options.signal?.throwIfAborted();
  const target = parseAllowlistedUrl(url, options.hosts);
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  try {
    const addresses = await resolveVettedAddresses(target.host, {
      lookup: options.lookup ?? resolveAll,
      isAllowedAddress: options.isAllowedAddress ?? isPublicAddress,
      signal,
    });
    return await exchange(target, addresses, options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES, options.ca, signal);
  } catch (err) {
    if (!signal.aborted) throw err;
    options.signal?.throwIfAborted();
    throw new AppError("FETCH_FAILED", `fetch_url: \`${target.host}\` did not answer within ${timeoutMs} ms`, { cause: err });
  }
}

function networkError(host: string, err: unknown): AppError {
  // The code only: Node's message names the address it connected to.
  const code = (err as NodeJS.ErrnoException).code ?? "connection failed";
  return new AppError("FETCH_FAILED", `fetch_url: \`${host}\` could not be fetched (${code})`, { cause: err });
}

/** The one GET; rejects with anything once `signal` aborts (the caller names the reason). */
function exchange(
  target: AllowlistedUrl,
  addresses: VettedAddresses,
  maxBytes: number,
  ca: string | Buffer | undefined,
  signal: AbortSignal,
): Promise<FetchedPage> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.host,
      // SNI and the name the certificate must carry (Node would derive it from `host`; said here so it cannot drift).
      servername: target.host,
      path: `${target.url.pathname}${target.url.search}`,
      headers: { accept: ACCEPT, "user-agent": "reviewbot" },
      // A connection of its own: a pooled one may have been opened to another address.
      agent: false,
      lookup: pinnedLookup(addresses),
      ...(ca === undefined ? {} : { ca }),
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      req.destroy();
      outcome();
    };
    const fail = (err: Error) => {
      settle(() => {
        reject(err);
      });
    };
    const onAbort = () => {
      fail(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err) => {
      fail(networkError(target.host, err));
    });
    req.on("response", (res) => {
      const head = checkHead(target, res);
      if (head instanceof AppError) {
        fail(head);
        return;
      }
      const onBody = (body: Buffer, truncated: boolean) => {
        settle(() => {
          resolve({ url: target.url.href, ...head, text: new TextDecoder().decode(body), truncated });
        });
      };
      readBody(res, maxBytes, onBody, (err) => {
        fail(networkError(target.host, err));
      });
    });
    req.end();
  });
}

/** The status and type of a response the model may read, or the refusal to read it. */
function checkHead(target: AllowlistedUrl, res: IncomingMessage): { status: number; contentType: string } | AppError {
  const status = res.statusCode ?? 0;
  const where = `\`${target.url.href}\``;
  // Location is not read, let alone reported: the model may fetch an allowlisted URL itself.
  if (status >= 300 && status < 400) return refuse(`${where} answered ${status}, a redirect; redirects are not followed`);
  const contentType = (res.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase().slice(0, 100) ?? "";
  if (!TEXT_LIKE.test(contentType)) return refuse(`${where} is ${contentType === "" ? "of no content type" : contentType}, not text`);
  // We ask for no encoding; a body compressed anyway would reach the model as noise.
  const encoding = res.headers["content-encoding"]?.trim().toLowerCase() ?? "identity";
  if (encoding !== "identity") return refuse(`${where} came with content-encoding ${encoding.slice(0, 100)}, which is not decoded`);
  return { status, contentType };
}

/** Reads at most `maxBytes`, then stops (the caller destroys the request): memory stays bounded. */
function readBody(res: IncomingMessage, maxBytes: number, done: (body: Buffer, truncated: boolean) => void, fail: (err: unknown) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  res.on("data", (chunk: Buffer) => {
    const room = maxBytes - received;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      done(Buffer.concat(chunks), true);
      return;
    }
    chunks.push(chunk);
    received += chunk.length;
  });
  res.on("end", () => {
    done(Buffer.concat(chunks), false);
  });
  res.on("error", fail);
  res.on("close", () => {
    if (!res.complete) fail(Object.assign(new Error("the body was cut short"), { code: "ECONNRESET" }));
  });
}
