import { z } from "zod";

/**
 * The commands a trusted person gives reviewbot in a PR comment, or a reply in one of our review
 * threads, as its first line `@<app slug> <command>` (docs/github-app.md, "Commands"). One home:
 * the api parses them, the help reply, the summary and the CLI list them from here.
 */
export const PR_COMMANDS = [
  { name: "review", description: "Review the commits pushed since the last review, now." },
  { name: "full review", description: "Review the whole PR again, as if nothing had been reviewed before." },
  { name: "pause", description: "Stop the automatic review of each push to this PR (commands still work)." },
  { name: "resume", description: "Review each push to this PR automatically again." },
  { name: "resolve", description: "Resolve every open review thread of reviewbot's on this PR." },
  { name: "summary", description: "Regenerate the PR's summary comment only." },
  { name: "help", description: "Reply with this list of commands." },
] as const;

export const PrCommandName = z.enum(PR_COMMANDS.map((command) => command.name) as [PrCommandName, ...PrCommandName[]]);
export type PrCommandName = (typeof PR_COMMANDS)[number]["name"];

/** The longest command text looked at after the mention: every command is far shorter. */
const MAX_COMMAND_CHARS = 64;
const NAMES: ReadonlySet<string> = new Set(PR_COMMANDS.map((command) => command.name));

/**
 * The command a comment gives, or null when its first line does not start with `@<slug>` followed
 * by a space or the line's end (the slug matched case-insensitively, as GitHub treats logins).
 * Words after the mention are compared case-insensitively with single spaces between them; an
 * unknown or missing command is `help` (its answer is the list). Only the first line counts, and
 * only its first {@link MAX_COMMAND_CHARS} characters after the mention are read: linear in the
 * line's length at most, whatever the comment's size. `slug` is the App's, from `GET /app`.
 */
export function parsePrCommand(body: string, slug: string): PrCommandName | null {
  const end = body.indexOf("\n");
  const firstLine = (end === -1 ? body : body.slice(0, end)).trimStart();
  const mention = `@${slug}`;
  if (firstLine.length < mention.length || firstLine.slice(0, mention.length).toLowerCase() !== mention.toLowerCase()) return null;
  const rest = firstLine.slice(mention.length, mention.length + MAX_COMMAND_CHARS + 1);
  if (rest !== "" && !/^\s/.test(rest)) return null;
  const words = rest.trim().toLowerCase().split(/\s+/).join(" ");
  return rest.length <= MAX_COMMAND_CHARS && NAMES.has(words) ? (words as PrCommandName) : "help";
}
