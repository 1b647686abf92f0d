import { HELPER_NAME } from "@reviewbot/policy/helper-spec";
import { member } from "./json-input.js";

/** More of a tool's name than this is never read: a helper name has at most 64 characters. */
const READ_AT_MOST = 256;

/**
 * The source a run's findings are named for when the SARIF file is a code scanner's (CodeQL,
 * Semgrep, ESLint, ruff): its `tool.driver.name` made a helper name, each run of characters a
 * helper name cannot hold turned into one `-` (`Semgrep OSS` → `Semgrep-OSS`), cut to 64. The
 * name is the file's claim, untrusted like the rest of it: it only labels findings. `undefined`
 * when the run names no tool or nothing of the name is left (the caller's fallback applies).
 */
export function sarifToolSource(run: unknown): string | undefined {
  const name = member(run, "tool", "driver", "name");
  if (typeof name !== "string") return undefined;
  const source = name
    .slice(0, READ_AT_MOST)
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^[^A-Za-z]+/, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return HELPER_NAME.test(source) ? source : undefined;
}
