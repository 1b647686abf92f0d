import { z } from "zod";

/**
 * What happened to one helper: `passed` and `findings` are the tool's own verdict; the rest say its
 * verdict is incomplete (it failed to run, or the sandbox ended it: deadline, OOM kill, output cut,
 * the review cancelled), kept apart from "the tool ran and found problems".
 */
export const HelperOutcome = z.enum(["passed", "findings", "failed", "cancelled", "timeout", "oom", "truncated"]);
export type HelperOutcome = z.infer<typeof HelperOutcome>;

/** The outcomes after which a helper's findings do not tell the whole story. */
export const INCOMPLETE_HELPER_OUTCOMES: ReadonlySet<HelperOutcome> = new Set(["failed", "timeout", "oom", "truncated", "cancelled"]);
