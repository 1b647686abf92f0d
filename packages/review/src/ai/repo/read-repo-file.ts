import { quote } from "@reviewbot/policy/config-error";
import { readBlobs } from "@reviewbot/overlay/read-blobs";
import { formatBytes } from "../../findings/format-bytes.js";
import { lineWindow, type LineWindow } from "./line-window.js";
import type { RepoReaderLimits } from "./repo-reader-limits.js";
import { checkRepoPath } from "./repo-path.js";
import { commitOf, type RepoSource, type Side } from "./repo-source.js";
import { lookupEntry, refuseLinks } from "./tree-entry.js";
import { ToolInputError } from "../tools/tool-input-error.js";

export interface ReadFileRequest {
  readonly path: string;
  readonly side: Side;
  readonly startLine?: number | undefined;
  readonly endLine?: number | undefined;
}

export interface ReadFileResult extends LineWindow {
  readonly path: string;
  readonly side: Side;
}

/** Git's own test for binary content (`buffer_is_binary`): a NUL among the first 8,000 bytes. */
const BINARY_PROBE_BYTES = 8000;

/**
 * A window of lines of the blob at `path` in `side`'s commit. The entry's mode and size come from
 * the tree before any content is read: symlinks, submodules and directories are refused, as are
 * blobs over `maxFileBytes` unless a line range is asked for, and over `maxRangeFileBytes` always.
 */
export async function readRepoFile(source: RepoSource, request: ReadFileRequest, limits: RepoReaderLimits): Promise<ReadFileResult> {
  const path = checkRepoPath("read_file", request.path);
  const shown = quote(request.path, 200);
  const entry = await lookupEntry(source, commitOf(source, request.side), path);
  if (entry === null) throw new ToolInputError(`read_file: ${shown} does not exist at ${request.side}`);
  refuseLinks("read_file", shown, entry);
  if (entry.type === "dir" || entry.size === null) throw new ToolInputError(`read_file: ${shown} is a directory; use list_dir`);
  const size = entry.size;
  if (size > limits.maxRangeFileBytes) {
    throw new ToolInputError(`read_file: ${shown} is ${formatBytes(size)} (${size} bytes); files over ${formatBytes(limits.maxRangeFileBytes)} are not read`);
  }
  const ranged = request.startLine !== undefined || request.endLine !== undefined;
  if (size > limits.maxFileBytes && !ranged) {
    throw new ToolInputError(
      `read_file: ${shown} is ${formatBytes(size)} (${size} bytes), over the ${formatBytes(limits.maxFileBytes)} read whole; ask for a line range with startLine and endLine`,
    );
  }
  const blob = (await readBlobs(source.context, source.gitDir, [entry.oid], size)).get(entry.oid) ?? Buffer.alloc(0);
  if (blob.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
    throw new ToolInputError(`read_file: ${shown} is a binary file, ${size} bytes; it is not shown`);
  }
  const window = lineWindow(blob.toString("utf8"), request, limits);
  return { path, side: request.side, ...window };
}
