import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { DEFAULT_AI_SKIP_RULES } from "@reviewbot/policy/ai-skip-rules";
import { parseRepoConfig, type RepoConfig } from "@reviewbot/policy/repo-config";

const CONFIG_PATH = ".ai/review-tools.json";

/**
 * The repository's helpers and the AI review's skip rules, from the trusted commit's `.ai/review-tools.json` (the default branch's
 * head, see CheckoutRequest.config) as the overlay wrote it (never the PR's). No `.ai/` or no file: no helpers and the default skip rules. A failed-closed overlay: no helpers and an
 * error saying why. A bad config yields the valid helpers and its errors.
 */
export async function loadRepoConfig(checkout: Checkout, operator: OperatorPolicy): Promise<RepoConfig> {
  if (checkout.overlay.failedClosed) {
    const reason = checkout.overlay.reason ?? "the trusted commit could not be read";
    return {
      helpers: [],
      aiSkip: DEFAULT_AI_SKIP_RULES,
      errors: [{ path: CONFIG_PATH, message: `${CONFIG_PATH}: not used, the trusted overlay failed closed (${reason})` }],
    };
  }
  const path = join(checkout.dir, CONFIG_PATH);
  const info = await lstat(path).catch(() => null);
  if (info === null) return { helpers: [], aiSkip: DEFAULT_AI_SKIP_RULES, errors: [] };
  if (!info.isFile()) {
    return {
      helpers: [],
      aiSkip: DEFAULT_AI_SKIP_RULES,
      errors: [{ path: CONFIG_PATH, message: `${CONFIG_PATH}: is not a regular file on the trusted commit` }],
    };
  }
  return parseRepoConfig(await readFile(path, "utf8"), operator);
}
