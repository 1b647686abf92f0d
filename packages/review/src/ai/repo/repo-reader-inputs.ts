import { z } from "zod";

/**
 * The arguments of the repository tools, as the model writes them (untrusted JSON). Strict
 * objects with bounded fields; turn them into tool parameters with
 * `z.toJSONSchema(schema, { io: "input" })` so that defaulted fields (`side`) stay optional.
 */
const side = z.enum(["head", "base"]).default("head").describe('"head" (default): the PR\'s version; "base": the version of the branch it targets.');
const filePath = z.string().min(1).max(4096).describe('A path from the repository root, e.g. "src/app.ts".');
const dirPath = z.string().max(4096).describe('A directory from the repository root, e.g. "src"; omit for the root.');
const lineNumber = z.int().min(1).max(10_000_000);

export const ReadFileInput = z.strictObject({
  path: filePath,
  side,
  startLine: lineNumber.optional().describe("First line to read (1-based, default 1)."),
  endLine: lineNumber.optional().describe("Last line to read (inclusive); at most a few hundred lines are returned per call."),
});
export type ReadFileInput = z.input<typeof ReadFileInput>;

export const ListDirInput = z.strictObject({ path: dirPath.optional(), side });
export type ListDirInput = z.input<typeof ListDirInput>;

export const GrepInput = z.strictObject({
  pattern: z.string().min(1).max(500).describe("The text to search for, on one line."),
  side,
  path: dirPath.optional().describe("A file or directory to search in; omit for the whole repository."),
  regex: z.boolean().default(false).describe("Read the pattern as a POSIX extended regular expression (default: fixed text)."),
  caseInsensitive: z.boolean().default(false),
});
export type GrepInput = z.input<typeof GrepInput>;

export const GetDiffInput = z.strictObject({
  path: dirPath.optional().describe("A file (or directory) of the PR; omit for the whole PR's diff."),
});
export type GetDiffInput = z.input<typeof GetDiffInput>;
