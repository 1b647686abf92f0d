import { randomBytes } from "node:crypto";
import { appendFile } from "node:fs/promises";

/**
 * One entry of a runner file command (`$GITHUB_OUTPUT`): `name=value` for a one-line value, else
 * the heredoc form `name<<DELIM`, value, `DELIM` with a random delimiter (as `@actions/core`
 * writes it), checked to occur in neither the name nor the value so the value cannot end early
 * and set another output. A name with a line break or `=` would forge an entry: refused.
 */
export function outputEntry(name: string, value: string, delimiter: string = `ghadelimiter_${randomBytes(16).toString("hex")}`): string {
  if (name === "" || /[\r\n=]|<</.test(name)) throw new Error(`output name ${JSON.stringify(name)} cannot be written to a runner file`);
  if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`output ${name}: its value contains the delimiter`);
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/** Appends `outputs` to the runner's output file, one entry each (see {@link outputEntry}). */
export async function appendOutputs(path: string, outputs: Readonly<Record<string, string>>): Promise<void> {
  await appendFile(
    path,
    Object.entries(outputs)
      .map(([name, value]) => outputEntry(name, value))
      .join(""),
    "utf8",
  );
}
