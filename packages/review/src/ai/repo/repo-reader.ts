import { COMMIT_SHA } from "@reviewbot/contracts/commit-sha";
import { AppError } from "@reviewbot/core/errors";
import { getRepoDiff, type GetDiffResult } from "./get-repo-diff.js";
import { grepRepo, type GrepResult } from "./grep-repo.js";
import { listRepoDir, type ListDirResult } from "./list-repo-dir.js";
import { parseToolInput } from "../tools/parse-tool-input.js";
import { readRepoFile, type ReadFileResult } from "./read-repo-file.js";
import { GetDiffInput, GrepInput, ListDirInput, ReadFileInput } from "./repo-reader-inputs.js";
import { DEFAULT_REPO_READER_LIMITS, type RepoReaderLimits } from "./repo-reader-limits.js";
import type { RepoSource } from "./repo-source.js";

export { GetDiffInput, GrepInput, ListDirInput, ReadFileInput } from "./repo-reader-inputs.js";
export { DEFAULT_REPO_READER_LIMITS, type RepoReaderLimits } from "./repo-reader-limits.js";
export type { RepoSource, Side } from "./repo-source.js";
export type { GetDiffResult, GrepResult, ListDirResult, ReadFileResult };
export type { DirEntry } from "./list-repo-dir.js";
export type { GrepHit } from "./grep-output.js";

/**
 * The model's read-only view of a PR: files, directories, text search and the diff, read from
 * git objects by SHA (`ls-tree`, `cat-file`, `grep`, `diff` on the mirror), never from the work
 * tree. Every method takes the model's arguments as they came (validated here with the exported
 * schemas) and throws `ToolInputError` for anything the model can correct; git failures of ours
 * propagate as AppError.
 */
export class RepoReader {
  readonly #source: RepoSource;
  readonly #limits: RepoReaderLimits;

  constructor(source: RepoSource, limits: Partial<RepoReaderLimits> = {}) {
    for (const sha of [source.headSha, source.baseSha, source.fromSha]) {
      // grep takes no --end-of-options (git 2.39), so the commits it is given must not look like options.
      if (!COMMIT_SHA.test(sha)) throw new AppError("INTERNAL", `RepoReader needs full commit SHAs, got ${JSON.stringify(sha.slice(0, 80))}`);
    }
    this.#source = Object.freeze({ ...source });
    this.#limits = Object.freeze({ ...DEFAULT_REPO_READER_LIMITS, ...limits });
  }

  /** `read_file`: a window of a text file's lines at head or base. */
  async readFile(input: ReadFileInput): Promise<ReadFileResult> {
    return await readRepoFile(this.#source, parseToolInput("read_file", ReadFileInput, input), this.#limits);
  }

  /** `list_dir`: one directory's entries (the root by default). */
  async listDir(input: ListDirInput): Promise<ListDirResult> {
    return await listRepoDir(this.#source, parseToolInput("list_dir", ListDirInput, input), this.#limits);
  }

  /** `grep`: matching lines, fixed text by default, within a deadline and a hit cap. */
  async grep(input: GrepInput): Promise<GrepResult> {
    return await grepRepo(this.#source, parseToolInput("grep", GrepInput, input), this.#limits);
  }

  /** `get_diff`: the PR's diff for one path or all of it, within a byte budget. */
  async getDiff(input: GetDiffInput = {}): Promise<GetDiffResult> {
    return await getRepoDiff(this.#source, parseToolInput("get_diff", GetDiffInput, input), this.#limits);
  }
}
