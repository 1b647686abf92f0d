import { runGit, type GitContext } from "./run-git.js";

/**
 * Reads blobs as raw bytes with one `git cat-file --batch`: no filters, no attributes, no
 * conversions. Fails when the blobs together exceed `maxBytes`.
 */
export async function readBlobs(context: GitContext, gitDir: string, shas: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
  const unique = [...new Set(shas)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const headerAllowance = unique.length * 100;
  const { stdout } = await runGit(context, gitDir, ["cat-file", "--batch"], {
    input: `${unique.join("\n")}\n`,
    maxOutputBytes: maxBytes + headerAllowance,
  });
  let offset = 0;
  while (offset < stdout.length) {
    const newline = stdout.indexOf(10, offset);
    const header = stdout.subarray(offset, newline).toString("latin1").split(" ");
    const [sha = "", type = "", sizeText = ""] = header;
    if (type !== "blob") throw new Error(`object ${sha} is ${type || "missing"}, expected a blob`);
    const size = Number(sizeText);
    const start = newline + 1;
    blobs.set(sha, Buffer.from(stdout.subarray(start, start + size)));
    offset = start + size + 1;
  }
  return blobs;
}
