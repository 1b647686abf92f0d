import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gitBytes, gitText, type GitCall } from "./git-env.js";

/** A repository the tests build and inspect with the isolated git of {@link gitText}. */
export interface FixtureRepo {
  readonly dir: string;
  /** The empty HOME every fixture git runs with. */
  readonly home: string;
  git(args: readonly string[], call?: GitCall): string;
  gitBytes(args: readonly string[], call?: GitCall): Buffer;
  rev(revision: string): string;
}

/** Edits a work tree through the file system, as a PR author's clone would. */
export interface WorkTreeWriter {
  readonly dir: string;
  write(path: string, content: string | Buffer, options?: { readonly executable?: boolean }): void;
  remove(path: string): void;
  rename(from: string, to: string): void;
  symlink(path: string, target: string): void;
}

/** The repository a PR targets: `main` is the trusted default branch, `fork` the PR head. */
export interface Upstream extends FixtureRepo {
  /** Checks out `branch`, lets `edit` change the work tree, commits all of it; returns the commit. */
  commitOn(branch: string, edit: (tree: WorkTreeWriter) => void, message?: string): string;
  /** Points `branch` at a new commit of `tree` whose parent is the branch's tip; returns the commit. */
  commitTreeOn(branch: string, tree: string, message?: string): string;
}

/**
 * Base files. `$Id$` and LF endings make `ident`, `eol=crlf` and encoding attributes visible if
 * they were ever applied to `.ai/`.
 */
export const BASE_AI_FILES: Readonly<Record<string, string>> = {
  ".ai/review-tools.json": '{"helpers":[{"name":"lint","command":[".ai/context-script"]}]}\n',
  ".ai/review-rules.md": "# Rules\n\n$Id$\nPrefer small functions.\nNo shell strings.\n",
  ".ai/context-script": "#!/bin/sh\n# $Id$\necho context\n",
  ".ai/prompts/system.txt": "You review code.\nBe precise.\n",
};

export const BASE_SOURCE_FILES: Readonly<Record<string, string>> = {
  "README.md": "# Sample\n\nA sample project.\n",
  "src/app.ts": Array.from({ length: 20 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join(""),
  "src/util.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
};

export interface UpstreamOptions {
  /** Whether `main` carries `.ai/`; default true. */
  readonly ai?: boolean;
}

/** Creates `<root>/upstream` with `main` (source files and, unless told otherwise, `.ai/`) and `fork` at main. */
export function createUpstream(root: string, options: UpstreamOptions = {}): Upstream {
  const home = join(root, "git-home");
  const dir = join(root, "upstream");
  mkdirSync(home, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const repo = fixtureRepo(dir, home);
  repo.git(["init", "--quiet", "--initial-branch=main"]);
  const writer = workTreeWriter(dir);
  for (const [path, content] of Object.entries(BASE_SOURCE_FILES)) writer.write(path, content);
  if (options.ai !== false) {
    for (const [path, content] of Object.entries(BASE_AI_FILES)) {
      writer.write(path, content, { executable: path === ".ai/context-script" });
    }
  }
  repo.git(["add", "--all"]);
  repo.git(["commit", "--quiet", "--message=base"]);
  repo.git(["branch", "fork", "main"]);

  const commitOn = (branch: string, edit: (tree: WorkTreeWriter) => void, message = `edit ${branch}`): string => {
    repo.git(["checkout", "--quiet", "--force", branch]);
    try {
      edit(writer);
      repo.git(["add", "--all"]);
      repo.git(["commit", "--quiet", "--allow-empty", `--message=${message}`]);
      return repo.rev("HEAD");
    } finally {
      repo.git(["checkout", "--quiet", "--force", "main"]);
    }
  };
  const commitTreeOn = (branch: string, tree: string, message = `tree on ${branch}`): string => {
    const commit = repo.git(["commit-tree", tree, "-p", repo.rev(branch), "-m", message]);
    repo.git(["update-ref", `refs/heads/${branch}`, commit]);
    return commit;
  };
  return { ...repo, commitOn, commitTreeOn };
}

export function fixtureRepo(dir: string, home: string): FixtureRepo {
  return {
    dir,
    home,
    git: (args, call) => gitText(home, dir, args, call),
    gitBytes: (args, call) => gitBytes(home, dir, args, call),
    rev: (revision) => gitText(home, dir, ["rev-parse", "--verify", "--end-of-options", revision]),
  };
}

function workTreeWriter(root: string): WorkTreeWriter {
  const at = (path: string): string => join(root, path);
  return {
    dir: root,
    write(path, content, options = {}) {
      mkdirSync(dirname(at(path)), { recursive: true });
      writeFileSync(at(path), content);
      chmodSync(at(path), options.executable === true ? 0o755 : 0o644);
    },
    remove(path) {
      rmSync(at(path), { recursive: true, force: true });
    },
    rename(from, to) {
      mkdirSync(dirname(at(to)), { recursive: true });
      renameSync(at(from), at(to));
    },
    symlink(path, target) {
      mkdirSync(dirname(at(path)), { recursive: true });
      rmSync(at(path), { recursive: true, force: true });
      symlinkSync(target, at(path));
    },
  };
}
