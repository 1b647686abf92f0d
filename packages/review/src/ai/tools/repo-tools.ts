import type { z } from "zod";
import type { ToolSpec } from "@reviewbot/contracts/chat";
import type { AiTool } from "./ai-tool.js";
import { toolParameters } from "./tool-parameters.js";
import { GetDiffInput, GrepInput, ListDirInput, ReadFileInput, type RepoReader } from "../repo/repo-reader.js";

/** The built-in tool names; a helper of the same name is not offered. */
export const REPO_TOOL_NAMES: ReadonlySet<string> = new Set(["read_file", "list_dir", "grep", "get_diff", "fetch_url", "submit_review"]);

/**
 * The read-only repository tools over git objects by SHA ({@link RepoReader}): each answer is
 * rendered as text, with the reader's own facts (line window, caps hit, files left out) written
 * outside the data so the model knows what it did not see.
 */
export function repoTools(reader: RepoReader): AiTool[] {
  return [
    {
      spec: spec("read_file", "Reads a text file of the PR's head (default) or of its base, a window of lines at a time.", ReadFileInput),
      untrusted: "file",
      async run(args) {
        const file = await reader.readFile(args as ReadFileInput);
        const more = file.nextStartLine === null ? "" : `; more from line ${file.nextStartLine} (call again with startLine)`;
        return `${file.path} (${file.side}) lines ${file.startLine}-${file.endLine} of ${file.totalLines}${file.truncated ? more || "; cut" : ""}\n${file.text}`;
      },
    },
    {
      spec: spec("list_dir", "Lists one directory of the PR's head (default) or base; the root when path is omitted.", ListDirInput),
      untrusted: "file",
      async run(args) {
        const listing = await reader.listDir(args as ListDirInput);
        const lines = listing.entries.map((entry) => `${entry.type}\t${entry.name}${entry.size === undefined ? "" : `\t${entry.size} bytes`}`);
        return [
          `${listing.path === "" ? "/" : listing.path} (${listing.side}):`,
          ...lines,
          ...(listing.more > 0 ? [`(${listing.more} more entries not listed)`] : []),
        ].join("\n");
      },
    },
    {
      spec: spec("grep", "Searches the PR's head (default) or base for a fixed string (or an extended regex), optionally under a path.", GrepInput),
      untrusted: "file",
      async run(args) {
        const found = await reader.grep(args as GrepInput);
        const notes = [
          found.truncated ? "(more matches not shown: narrow the pattern or the path)" : "",
          found.timedOut ? "(the search hit its deadline: results are partial)" : "",
        ].filter((note) => note !== "");
        return [...(found.hits.length === 0 ? ["no matches"] : found.hits.map((hit) => `${hit.path}:${hit.line}: ${hit.text}`)), ...notes].join("\n");
      },
    },
    {
      spec: spec("get_diff", "The PR's unified diff for one path, or for the whole PR when path is omitted (cut to a size budget).", GetDiffInput),
      untrusted: "diff",
      async run(args) {
        const diff = await reader.getDiff(args as GetDiffInput);
        const left = diff.omittedCount === 0 ? "" : `\n(${diff.omittedCount} file(s) left out: ${diff.omitted.join(", ")}; ask for them one path at a time)`;
        return `${diff.text}${diff.cut === null ? "" : `\n(the diff of ${diff.cut} was cut at the size budget)`}${left}`;
      },
    },
  ];
}

function spec(name: string, description: string, schema: z.ZodType): ToolSpec {
  return { name, description, parameters: toolParameters(schema) };
}
