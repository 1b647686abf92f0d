import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { ConfigError } from "@reviewbot/policy/config-error";

/** A file of the trusted `.ai/`: its text, absent, or why it cannot be used. */
export type TrustedFile =
  { readonly kind: "text"; readonly text: string } | { readonly kind: "absent" } | { readonly kind: "unusable"; readonly error: ConfigError };

/**
 * Reads `path` (`.ai/…`) of the trusted commit as the overlay wrote it into the checkout (the
 * default branch's head, see CheckoutRequest.config; never the PR's copy); the caller has checked
 * that the overlay did not fail closed. A path that is not a regular file (a symlink, a directory)
 * is unusable, with an error naming it.
 */
export async function readTrustedFile(checkout: Checkout, path: string): Promise<TrustedFile> {
  const full = join(checkout.dir, path);
  const info = await lstat(full).catch(() => null);
  if (info === null) return { kind: "absent" };
  if (!info.isFile()) return { kind: "unusable", error: { path, message: `${path}: is not a regular file on the trusted commit` } };
  return { kind: "text", text: await readFile(full, "utf8") };
}
