import { z } from "zod";

/**
 * A full commit id: 40 hex digits (SHA-1, every GitHub repository) or 64 (a git repository in the
 * SHA-256 object format, which the CLI and the local source can review). Lowercase only, as git
 * and GitHub print them, so one commit has one spelling in keys and comparisons.
 */
export const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export const CommitSha = z.string().regex(COMMIT_SHA, "must be a 40-character (SHA-1) or 64-character (SHA-256) lowercase hex SHA");
export type CommitSha = z.infer<typeof CommitSha>;
