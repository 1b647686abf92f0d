import { AppError } from "@reviewbot/core/errors";
import type { CheckoutLimits } from "./checkout-limits.js";
import { NulRecords } from "./nul-records.js";
import { runGit, type GitContext } from "./run-git.js";

interface TreeTotals {
  files: number;
  bytes: number;
}

/**
 * Walks a tree's entries as git streams them and stops git the moment a limit is crossed, so a
 * tree that expands to billions of entries costs no more than the limit to refuse.
 */
export async function assertTreeWithinLimits(context: GitContext, gitDir: string, treeish: string, limits: CheckoutLimits): Promise<TreeTotals> {
  const totals: TreeTotals = { files: 0, bytes: 0 };
  const records = new NulRecords();
  const outcome: { violation: string | null } = { violation: null };
  await runGit(context, gitDir, ["ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", treeish], {
    onStdout: (chunk) => {
      for (const record of records.push(chunk)) {
        outcome.violation = account(totals, record, limits);
        if (outcome.violation !== null) return "stop";
      }
      return undefined;
    },
  });
  if (outcome.violation !== null) {
    throw new AppError("CHECKOUT_TOO_LARGE", `checkout refused: ${outcome.violation}`, { details: { ...totals } });
  }
  return totals;
}

/** Adds one `<mode> <type> <object> <size>\t<path>` record; returns the limit it breaks, if any. */
function account(totals: TreeTotals, record: Buffer, limits: CheckoutLimits): string | null {
  const tab = record.indexOf(9);
  const meta = record.subarray(0, tab).toString("latin1").trim().split(/\s+/);
  const path = record.subarray(tab + 1);
  const size = Number(meta[3]);
  totals.files += 1;
  if (Number.isFinite(size)) totals.bytes += size;
  if (totals.files > limits.maxFiles) return `more than ${limits.maxFiles} files`;
  if (totals.bytes > limits.maxTotalBytes) return `more than ${limits.maxTotalBytes} bytes in total`;
  if (path.length > limits.maxPathBytes) return `a path longer than ${limits.maxPathBytes} bytes`;
  const depth = path.reduce((count, byte) => (byte === 0x2f ? count + 1 : count), 1);
  if (depth > limits.maxPathDepth) return `a path deeper than ${limits.maxPathDepth} directories`;
  return null;
}
