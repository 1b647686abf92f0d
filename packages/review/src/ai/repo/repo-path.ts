import { quote } from "@reviewbot/policy/config-error";
import { ToolInputError } from "../tools/tool-input-error.js";

/** Git itself has no limit, but the checkout refuses head trees with longer paths (CheckoutLimits). */
export const MAX_PATH_BYTES = 4096;

/**
 * Checks a path the model gave a tool and returns it in the form git's trees use: relative to the
 * repository root, `/`-separated, without a trailing `/`; `""` (or `"."`) is the root. Absolute
 * paths, `..`, empty and `.` segments and control characters are refused rather than normalised:
 * the path is only ever looked up in a tree object (never on disk), but a model that writes
 * `../../etc/passwd` should be told plainly that nothing outside the repository is readable.
 */
export function checkRepoPath(tool: string, path: string): string {
  const refuse = (reason: string): never => {
    throw new ToolInputError(`${tool}: the path ${quote(path, 200)} ${reason}`);
  };
  if (hasControlCharacter(path)) refuse("contains a control character");
  if (Buffer.byteLength(path, "utf8") > MAX_PATH_BYTES) refuse(`is longer than ${MAX_PATH_BYTES} bytes`);
  if (path.startsWith("/")) refuse('is absolute; paths are relative to the repository root, e.g. "src/app.ts"');
  if (path === "" || path === ".") return "";
  const relative = path.endsWith("/") ? path.slice(0, -1) : path;
  for (const segment of relative.split("/")) {
    if (segment === "..") refuse('has a ".." segment; only files inside the repository can be read');
    if (segment === "" || segment === ".") refuse('has an empty or "." segment; write it as "src/app.ts", not "./src//app.ts"');
  }
  return relative;
}

/** C0 controls and DEL: git can store them in a name, but no path the model means contains one. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
