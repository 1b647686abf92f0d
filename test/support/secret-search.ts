import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Every file below `dir` whose bytes contain `secret` (symlinks are not followed). */
export function filesContaining(dir: string, secret: string): string[] {
  const needle = Buffer.from(secret);
  const found: string[] = [];
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (stat.isFile() && readFileSync(path).includes(needle)) {
      found.push(path);
    }
  };
  visit(dir);
  return found;
}
