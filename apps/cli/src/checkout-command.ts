import { resolve } from "node:path";
import type { Logger } from "@reviewbot/core/logger";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { renderCheckout, type CheckoutSummary } from "./render-checkout.js";

export interface CheckoutArgs {
  readonly repo: string;
  readonly base: string;
  readonly head: string;
  /** The ref whose head's `.ai/` is trusted; without it, the base commit's. */
  readonly configRef?: string;
  readonly format: "text" | "json";
}

/**
 * `reviewbot checkout`: fetches base and head of a repository into the clone cache (the repository
 * is treated as a remote and never modified), applies the trusted `.ai/` overlay and prints what a
 * review would work on. The work tree is released afterwards.
 */
export async function checkoutCommand(cache: CloneCache, args: CheckoutArgs, logger: Logger): Promise<string> {
  const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(args.repo) ? args.repo : resolve(args.repo);
  const config = args.configRef === undefined ? {} : { config: { ref: args.configRef } };
  const checkout = await cache.checkout({ remote, base: { ref: args.base }, head: { ref: args.head }, ...config, label: "cli" });
  try {
    logger.info({ checkoutId: checkout.id, headSha: checkout.headSha, baseSha: checkout.baseSha }, "checkout ready");
    const summary: CheckoutSummary = {
      repo: remote,
      base: { ref: args.base, sha: checkout.baseSha },
      head: { ref: args.head, sha: checkout.headSha },
      overlay: checkout.overlay,
      diff: checkout.diff,
    };
    return renderCheckout(summary, args.format);
  } finally {
    await checkout.release();
  }
}
