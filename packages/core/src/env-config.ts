import { readFileSync } from "node:fs";
import type { z } from "zod";
import { AppError } from "./errors.js";
import { parseOrThrow } from "./parse-or-throw.js";

/**
 * Reads an app's configuration from its environment through the app's one strict schema (built
 * with `.strict()`, or the check of unknown names does nothing). Every REVIEWBOT_* variable is
 * handed to the schema, so an unknown REVIEWBOT_* name (a typo) is an error rather than a silent
 * default; other names are read only when the schema declares them (REDIS_URL) or their `X`
 * (REDIS_PASSWORD_FILE).
 *
 * Secrets may come from files, as Compose secrets and systemd credentials deliver them: for a
 * declared `X`, the variable `X_FILE` names a file whose content (less one trailing newline)
 * becomes `X`. Setting both is an error.
 *
 * The schema may end in a transform that narrows the result (a choice and the settings it
 * requires as one discriminated union); its object's keys are the names read.
 *
 * @throws AppError `CONFIG_INVALID` naming the first bad or unknown variable, never its value.
 */
export function parseEnvConfig<T extends z.ZodType & EnvSchema>(schema: T, env: NodeJS.ProcessEnv): Readonly<z.output<T>> {
  const declared = new Set(Object.keys("in" in schema ? schema.in.shape : schema.shape));
  // X_FILE of a declared X counts as declared: REDIS_PASSWORD_FILE was dropped here before the
  // file was ever read, so the Compose stack's apps met Redis without a password.
  const isRead = (key: string): boolean =>
    key.startsWith("REVIEWBOT_") || declared.has(key) || (key.endsWith("_FILE") && declared.has(key.slice(0, -"_FILE".length)));
  const slice: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && isRead(key)) slice[key] = value;
  }
  for (const [key, path] of Object.entries(slice)) {
    const base = key.slice(0, -"_FILE".length);
    if (!key.endsWith("_FILE") || declared.has(key) || !declared.has(base)) continue;
    if (slice[base] !== undefined) throw new AppError("CONFIG_INVALID", `${base}: set ${base} or ${key}, not both`);
    slice[base] = readSecretFile(key, path);
    Reflect.deleteProperty(slice, key);
  }
  return Object.freeze(parseOrThrow(schema, slice, "CONFIG_INVALID", { field: variableOf }));
}

/** An app's strict object of variables, or that object piped into a transform that narrows it. */
type EnvSchema = z.ZodObject | { readonly in: z.ZodObject };

/** The variable an issue is about: each unknown name, not the object that holds them. */
function variableOf(issue: z.core.$ZodIssue): string {
  return issue.code === "unrecognized_keys" ? issue.keys.join(", ") : String(issue.path[0] ?? "");
}

function readSecretFile(key: string, path: string): string {
  try {
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new AppError("CONFIG_INVALID", `${key}: cannot read ${path}`, { cause: error });
  }
}
