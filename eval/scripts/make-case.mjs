#!/usr/bin/env node
// Cuts one suite case out of a public repository's history (see ../suites/small/README.md):
//   node eval/scripts/make-case.mjs <git-dir> <commit> <invert|forward> <case-dir> <path>...
// invert: a bug-fix commit turned into the PR that introduces the bug (base = the fixed tree,
// head = its parent); forward: the commit as it was (a clean case, or a regression a later commit fixed). Writes base/<path> for every
// path named (byte for byte, from the base commit) and pr.patch limited to those paths; prints the
// PR's hunks with head line numbers so the known findings can be written by hand into case.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [gitDir, commit, mode, caseDir, ...paths] = process.argv.slice(2);
if (!gitDir || !commit || (mode !== "invert" && mode !== "forward") || !caseDir || !paths.length) {
  console.error("usage: make-case.mjs <git-dir> <commit> <invert|forward> <case-dir> <path>...");
  process.exit(2);
}
const git = (...args) => execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 64 << 20 });
const fixed = git("rev-parse", `${commit}^{commit}`).toString().trim();
const parent = git("rev-parse", `${fixed}^`).toString().trim();
const [base, head] = mode === "invert" ? [fixed, parent] : [parent, fixed];

for (const path of paths) {
  // A file the PR adds is not in the base: the patch creates it.
  if (git("ls-tree", "--name-only", base, "--", path).length === 0) continue;
  const target = join(caseDir, "base", path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, git("show", `${base}:${path}`));
}
const patch = git("diff", "--binary", "--no-color", "-M", base, head, "--", ...paths);
writeFileSync(join(caseDir, "pr.patch"), patch);
console.log(`base ${base}\nhead ${head}`);
console.log(git("diff", "--no-color", "-U0", base, head, "--", ...paths).toString());
