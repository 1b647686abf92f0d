import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { gitText } from "./git-env.js";
import { DEFAULT_CHECKOUT_LIMITS } from "@reviewbot/overlay/checkout-limits";
import { CloneCache, type Checkout, type CheckoutRequest, type CloneCacheOptions } from "@reviewbot/overlay/clone-cache";
import type { applyTrustedOverlay } from "@reviewbot/overlay/trusted-overlay";

/** The package does not export GitContext; it is the first parameter of every git-facing function. */
export type GitContext = Parameters<typeof applyTrustedOverlay>[0];

/** A cache for local (file://) remotes with the default limits; `overrides` change any option. */
export async function openCache(root: string, overrides: Partial<CloneCacheOptions> = {}): Promise<CloneCache> {
  const cache = new CloneCache({
    root,
    allowedProtocols: ["file"],
    gitTimeoutMs: 30_000,
    lockWaitMs: 30_000,
    limits: DEFAULT_CHECKOUT_LIMITS,
    ...overrides,
  });
  await cache.init();
  return cache;
}

/** The request for the fixture's PR: `fork` of `upstream` against its `main`. */
export function forkRequest(upstream: { readonly dir: string }, extra: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return { remote: upstream.dir, head: { ref: "fork" }, base: { ref: "main" }, ...extra };
}

/** Checks the fixture's PR out through a fresh cache at `<root>/cache`. */
export async function checkoutFork(root: string, upstream: { readonly dir: string }): Promise<Checkout> {
  const cache = await openCache(join(root, "cache"));
  return cache.checkout(forkRequest(upstream));
}

/** The hardened git context the package builds, for calling its functions directly. */
export function gitContext(home: string): GitContext {
  return { cwd: home, home, path: process.env.PATH ?? "/usr/bin:/bin", allowedProtocols: ["file"], timeoutMs: 30_000 };
}

/** Awaits `promise`, expecting an AppError with `code`; returns it for further assertions. */
export async function expectAppError(promise: Promise<unknown>, code: string): Promise<Error & { code: string }> {
  const error: unknown = await promise.then(
    () => expect.fail(`expected AppError ${code}, but the call succeeded`),
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ name: "AppError", code });
  return error as Error & { code: string };
}

/** Entries of `<root>/jobs` (job directories and their lock directories). */
export async function jobEntries(root: string): Promise<string[]> {
  return readdir(join(root, "jobs"));
}

/** The single mirror of a cache that has served one remote. */
export async function onlyMirror(root: string): Promise<string> {
  const mirrors = await readdir(join(root, "mirrors"));
  const repos = mirrors.filter((name) => name.endsWith(".git"));
  expect(repos).toHaveLength(1);
  return join(root, "mirrors", repos[0] ?? "");
}

/** The job refs (`refs/reviewbot/…`) a mirror still holds. */
export function mirrorJobRefs(mirror: string, home: string): string[] {
  const listed = gitText(home, home, [`--git-dir=${mirror}`, "for-each-ref", "--format=%(refname)", "refs/reviewbot/"]);
  return listed === "" ? [] : listed.split("\n");
}
