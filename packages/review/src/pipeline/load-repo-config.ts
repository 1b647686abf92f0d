import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { parseRepoConfig, type RepoConfig } from "@reviewbot/policy/repo-config";
import { DEFAULT_REVIEW_SETTINGS, parseReviewSettings, REVIEW_SETTINGS_PATH, type ParsedReviewSettings } from "@reviewbot/policy/review-settings";
import { readTrustedFile } from "./read-trusted-file.js";

const CONFIG_PATH = ".ai/review-tools.json";

/** The trusted `.ai/`'s helpers and the maintainers' settings, with every problem found in either. */
export interface TrustedConfig extends RepoConfig, ParsedReviewSettings {}

/**
 * The repository's helpers (`.ai/review-tools.json`) and settings (`.ai/review-config.json`), from
 * the trusted commit (never the PR's). No file: no helpers, the default settings. A failed-closed
 * overlay: no helpers, the default settings, and one error saying why. A bad file yields what of it
 * is valid (the defaults for the rest) and its errors.
 */
export async function loadRepoConfig(checkout: Checkout, operator: OperatorPolicy): Promise<TrustedConfig> {
  if (checkout.overlay.failedClosed) {
    const reason = checkout.overlay.reason ?? "the trusted commit could not be read";
    const message = `${CONFIG_PATH}: not used, the trusted overlay failed closed (${reason})`;
    return { helpers: [], settings: DEFAULT_REVIEW_SETTINGS, errors: [{ path: CONFIG_PATH, message }] };
  }
  const tools = await readTrustedFile(checkout, CONFIG_PATH);
  const config: RepoConfig =
    tools.kind === "text" ? parseRepoConfig(tools.text, operator) : { helpers: [], errors: tools.kind === "unusable" ? [tools.error] : [] };
  const file = await readTrustedFile(checkout, REVIEW_SETTINGS_PATH);
  const settings: ParsedReviewSettings =
    file.kind === "text" ? parseReviewSettings(file.text) : { settings: DEFAULT_REVIEW_SETTINGS, errors: file.kind === "unusable" ? [file.error] : [] };
  return { helpers: config.helpers, settings: settings.settings, errors: [...config.errors, ...settings.errors] };
}
