import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CREATE_SAMPLE = fileURLToPath(new URL("../../scripts/create-sample-repo.sh", import.meta.url));

/** git without the machine's config, with fixed identities and dates. */
function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
}

/** The bundled sample (scripts/create-sample-repo.sh) at `<root>/sample`. */
export function createSample(root: string): string {
  const dir = join(root, "sample");
  execFileSync("bash", [CREATE_SAMPLE, dir], { env: gitEnv(root), stdio: "ignore" });
  return dir;
}

const FLAKE8_TOOLS = {
  helpers: [
    {
      name: "flake8",
      description: "Python errors and style",
      image: "python",
      command: ["flake8", "pkg/"],
      format: "errorformat",
      severity: { F821: "error", default: "warning" },
    },
  ],
};

/**
 * A repository whose `main` has `files` small Python modules and a flake8 helper, and whose
 * `fork` changes every module, adding a line flake8 reports (an unused import).
 */
export async function createWidePr(root: string, files: number): Promise<string> {
  const dir = join(root, "wide");
  const env = gitEnv(root);
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, env, stdio: "ignore" });
  };
  const modules = Array.from({ length: files }, (_, i) => join(dir, "pkg", `m${String(i).padStart(4, "0")}.py`));
  await mkdir(join(dir, ".ai"), { recursive: true });
  await mkdir(join(dir, "pkg"), { recursive: true });
  git("init", "--quiet", "--initial-branch=main");
  await writeFile(join(dir, ".ai", "review-tools.json"), `${JSON.stringify(FLAKE8_TOOLS, null, 2)}\n`);
  await Promise.all(modules.map((path, i) => writeFile(path, `VALUE = ${String(i)}\n`)));
  git("add", "--all");
  git("commit", "--quiet", "--message=base");
  git("checkout", "--quiet", "-b", "fork");
  await Promise.all(modules.map((path, i) => writeFile(path, `import os\nVALUE = ${String(i)}\n`)));
  git("commit", "--quiet", "--all", "--message=touch every module");
  git("checkout", "--quiet", "main");
  return dir;
}

/** A push to the PR of `dir` (a repository made here, under `root`): one commit on `fork` replacing the line `from` of `path` by `to`. */
export function pushLineChange(root: string, dir: string, change: { readonly path: string; readonly from: string; readonly to: string }): void {
  const env = gitEnv(root);
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, env, stdio: "ignore" });
  };
  git("checkout", "--quiet", "fork");
  const file = join(dir, change.path);
  const text = readFileSync(file, "utf8");
  if (!text.includes(change.from)) throw new Error(`${change.path} no longer has the line the benchmark changes`);
  writeFileSync(file, text.replace(change.from, change.to));
  git("commit", "--quiet", "--all", "--message=one changed line");
  git("checkout", "--quiet", "main");
}

/** A PR that changes one file of a repository without `.ai/`: a review with no helper to run. */
export function createNoopPr(dir: string): { readonly baseSha: string; readonly headSha: string } {
  const env = gitEnv(dir);
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
  execFileSync("mkdir", ["-p", dir]);
  git("init", "--quiet", "--initial-branch=main");
  git("commit", "--quiet", "--allow-empty", "--message=base");
  git("checkout", "--quiet", "-b", "fork");
  git("commit", "--quiet", "--allow-empty", "--message=the PR");
  git("checkout", "--quiet", "main");
  return { baseSha: git("rev-parse", "main"), headSha: git("rev-parse", "fork") };
}

/**
 * A branch `name` off `from` without `.ai/review-tools.json` and `.ai/context-script` (its
 * `.ai/review-rules.md` kept). Given as a review's trusted config ref, the review runs no helper
 * and no script, so it needs no sandbox; the PR's diff is unchanged.
 */
export function configWithoutHelpers(dir: string, from: string, name: string): void {
  const env = gitEnv(dir);
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, env, stdio: "ignore" });
  };
  git("checkout", "--quiet", "-b", name, from);
  git("rm", "--quiet", "--ignore-unmatch", ".ai/review-tools.json", ".ai/context-script");
  git("commit", "--quiet", "--allow-empty", "--message=no helpers");
  git("checkout", "--quiet", "main");
}
