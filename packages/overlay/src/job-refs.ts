import { runGit, type GitContext } from "./run-git.js";

/** The refs namespace that keeps one job's commits alive in a shared mirror. */
export function jobRefPrefix(jobId: string): string {
  return `refs/reviewbot/jobs/${jobId}`;
}

/** Lists the refs under `prefix` in a mirror. */
export async function listRefs(context: GitContext, mirror: string, prefix: string): Promise<string[]> {
  const listed = await runGit(context, mirror, ["for-each-ref", "--format=%(refname)", "--end-of-options", prefix]);
  return listed.stdout
    .toString("utf8")
    .split("\n")
    .filter((ref) => ref !== "");
}

/** Deletes every ref under `prefix` in one transaction. */
export async function deleteRefs(context: GitContext, mirror: string, prefix: string): Promise<void> {
  const refs = await listRefs(context, mirror, prefix);
  if (refs.length === 0) return;
  await runGit(context, mirror, ["update-ref", "--stdin"], { input: refs.map((ref) => `delete ${ref}\n`).join("") });
}
