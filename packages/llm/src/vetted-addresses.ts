import type { LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { AppError } from "@reviewbot/core/errors";

/** What the fetcher asks of DNS: every address of a host (`node:dns/promises` `lookup`, `all: true`). */
export type ResolveHost = (host: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/** A host's addresses, every one of them accepted by the address policy; never empty. */
export type VettedAddresses = readonly [LookupAddress, ...LookupAddress[]];

export interface VetOptions {
  readonly lookup: ResolveHost;
  readonly isAllowedAddress: (ip: string) => boolean;
  readonly signal: AbortSignal;
}

/** Settles as `work` does, or rejects as soon as `signal` aborts (a DNS lookup cannot be cancelled). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener("abort", onAbort);
    });
  });
}

/**
 * Resolves `host` once and vets **every** address: one private answer among public ones refuses
 * the host, since the connection may pick any of them. The caller then connects only to these
 * (see `pinnedLookup`), so a second answer from DNS — rebinding — is never consulted. The message
 * never names the address: it reaches the model, and through it the PR's author.
 *
 * @throws AppError `POLICY_DENIED` (an address the policy refuses), `FETCH_FAILED` (DNS failed or
 *   answered nothing); any error once `signal` has aborted.
 */
export async function resolveVettedAddresses(host: string, options: VetOptions): Promise<VettedAddresses> {
  let answers: Awaited<ReturnType<ResolveHost>>;
  try {
    answers = await untilAborted(options.lookup(host), options.signal);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "no answer";
    throw new AppError("FETCH_FAILED", `fetch_url: \`${host}\` could not be resolved (${code})`, { cause: err });
  }
  // The family is read from the address itself, not taken from the resolver's word for it.
  const vetted = answers.map(({ address }) => ({ address, family: isIP(address) }));
  const refused = vetted.find(({ address, family }) => family === 0 || !options.isAllowedAddress(address));
  if (refused !== undefined) {
    throw new AppError("POLICY_DENIED", `fetch_url: \`${host}\` resolves to an address that is not public`, {
      details: { host, address: refused.address },
    });
  }
  const [first, ...rest] = vetted;
  if (first === undefined) throw new AppError("FETCH_FAILED", `fetch_url: \`${host}\` has no address`);
  return [first, ...rest];
}

/**
 * A `lookup` for `https.request` that answers with the vetted addresses and never asks DNS: the
 * TLS layer still checks the certificate against the host name (SNI `servername`), but the
 * socket goes only where the policy looked.
 */
export function pinnedLookup(addresses: VettedAddresses): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for `all` when it races IPv4 and IPv6 (autoSelectFamily, on by default in Node 20).
    if (options.all === true) callback(null, [...addresses]);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}
