import { z } from "zod";

/**
 * One glob over a path from the repository root, as the trusted `.ai/` names them (`aiSkip.paths`,
 * the `paths` of a `.ai/rules/*.md`): `*` within a name, `**` across directories, `?` one
 * character; nothing else is special.
 */
export const Glob = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.\-/*?@+~ ]+$/, "may contain only letters, digits, spaces and . - _ / * ? @ + ~")
  .refine((glob) => !glob.startsWith("/") && !glob.split("/").some((part) => part === "" || part === "." || part === ".."), {
    error: "must be a relative path from the repository root without empty, . or .. segments",
  });

/** A matcher for `globs` (each a {@link Glob}): the first that matches a path, or null. Compiles each glob once. */
export function globMatcher(globs: readonly string[]): (path: string) => string | null {
  const patterns = globs.map((glob) => ({ glob, pattern: globPattern(glob) }));
  return (path) => patterns.find(({ pattern }) => pattern.test(path))?.glob ?? null;
}

// `**/` any directories (none included), a final `**` anything, `*` within one segment, `?` one
// character of a segment; everything else is itself.
function globPattern(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob.charAt(index);
    if (glob.startsWith("**/", index)) {
      source += "(?:[^/]*/)*";
      index += 2;
    } else if (glob.startsWith("**", index)) {
      source += ".*";
      index += 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\-]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
