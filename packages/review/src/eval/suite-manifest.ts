import { z } from "zod";

/** A case id: also a directory name under `cases/` and a cache key, so nothing but plain characters. */
export const CaseId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "a case id is letters, digits, '.', '_' and '-' (at most 100)");

/** A relative path inside a repository: no absolute path, no `..`, no empty or `.` segment, no NUL. */
export const RepoPath = z
  .string()
  .min(1)
  .max(1000)
  .refine((path) => !path.startsWith("/") && !path.includes("\0") && path.split("/").every((part) => part !== "" && part !== "." && part !== ".."), {
    message: "a path must be relative, without '..', '.' or empty segments",
  });

const Sha = z.string().regex(/^[0-9a-f]{40}$/, "a full 40-hex commit sha");

/** `suite.json`. */
export const SuiteManifest = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(4000),
  cases: z.array(CaseId).min(1).max(10_000),
});
export type SuiteManifest = z.infer<typeof SuiteManifest>;

/** One finding the case's PR is known to carry: a line range of one side of the diff. */
export const KnownFinding = z
  .strictObject({
    path: RepoPath,
    startLine: z.int().positive(),
    endLine: z.int().positive(),
    side: z.enum(["RIGHT", "LEFT"]),
    description: z.string().min(1).max(4000),
  })
  .refine((known) => known.startLine <= known.endLine, { message: "startLine must not be after endLine", path: ["startLine"] });
export type KnownFinding = z.infer<typeof KnownFinding>;

/** `cases/<id>/case.json`: a `bug` case has known findings, a `clean` one none. */
export const CaseManifest = z
  .strictObject({
    id: CaseId,
    kind: z.enum(["bug", "clean"]),
    title: z.string().min(1).max(200),
    body: z.string().max(20_000).optional(),
    source: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("tree") }),
      z.strictObject({ kind: z.literal("git"), url: z.url({ protocol: /^(https|file)$/ }), base: Sha, head: Sha }),
    ]),
    known: z.array(KnownFinding).max(1000),
  })
  .refine((manifest) => (manifest.kind === "clean") === (manifest.known.length === 0), {
    message: "a bug case lists its known findings, a clean case none",
    path: ["known"],
  });
export type CaseManifest = z.infer<typeof CaseManifest>;
