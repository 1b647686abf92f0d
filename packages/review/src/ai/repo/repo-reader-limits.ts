/** What one tool call may cost and return; every field has a default, an operator may change any. */
export interface RepoReaderLimits {
  /** The largest file `read_file` returns from its first line on (1 MiB). */
  readonly maxFileBytes: number;
  /**
   * The largest file read at all, and only for an explicit line range (8 MiB). A blob is read
   * whole into memory, so this bounds one call's memory; its size comes from `ls-tree -l` first,
   * so a 50 MB blob is refused without a byte of it being read.
   */
  readonly maxRangeFileBytes: number;
  /** Lines per `read_file` answer (400). */
  readonly maxLines: number;
  /** Characters per `read_file` answer (50,000); a single longer line is cut. */
  readonly maxChars: number;
  /** Entries per `list_dir` answer (500); the answer says how many more there are. */
  readonly maxDirEntries: number;
  /** Hits per `grep` answer (200); git is stopped at the next one. */
  readonly maxGrepHits: number;
  /** Wall clock of one `grep` (5 s): git is killed and the hits found so far returned. */
  readonly grepDeadlineMs: number;
  /** Characters of a hit's line (300); read_file shows the rest. */
  readonly maxHitChars: number;
  /** Bytes of one `get_diff` answer (200 KiB); files that do not fit are named, not shown. */
  readonly maxDiffBytes: number;
}

export const DEFAULT_REPO_READER_LIMITS: RepoReaderLimits = Object.freeze({
  maxFileBytes: 1024 * 1024,
  maxRangeFileBytes: 8 * 1024 * 1024,
  maxLines: 400,
  maxChars: 50_000,
  maxDirEntries: 500,
  maxGrepHits: 200,
  grepDeadlineMs: 5000,
  maxHitChars: 300,
  maxDiffBytes: 200 * 1024,
});
