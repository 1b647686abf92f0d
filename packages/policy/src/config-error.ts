import { z } from "zod";
import { hexCode, isUnsafeCharacter } from "./unsafe-text.js";

/**
 * One problem found in a configuration: `path` names the field (`helpers[1].command[0]`) and
 * `message` is the complete sentence shown to people, `path` first, then the reason
 * (`helpers[1].command[0]: "../x.sh" leaves .ai/ after normalisation`).
 */
export interface ConfigError {
  readonly path: string;
  readonly message: string;
}

/**
 * What every batch rule of this package returns: the accepted (often normalised) value, or every
 * problem found, each naming its field. Rules that run once per request throw `AppError` instead.
 */
export type CheckResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ConfigError[] };

/** The path shown for a problem with the document as a whole. */
export const ROOT_PATH = "(root)";

/**
 * Renders an untrusted value for a message: quoted, escaped, and cut to `max` characters (80 by
 * default) so that a hostile config cannot inject lines or megabytes into a report.
 */
export function quote(value: string, max = 80): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  // JSON.stringify escapes C0 controls but not DEL, C1 controls, line separators or bidi controls.
  const escape = (char: string) => (isUnsafeCharacter(char) ? `\\u${hexCode(char).toLowerCase()}` : char);
  return Array.from(JSON.stringify(cut), escape).join("");
}

/**
 * Formats a path such as `["helpers", 1, "severity", "no-undef"]` as
 * `helpers[1].severity["no-undef"]`; the empty path is {@link ROOT_PATH}.
 */
export function formatPath(segments: readonly PropertyKey[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (typeof segment !== "string" || !/^[A-Za-z_$][\w$]*$/.test(segment)) path += `[${quote(String(segment))}]`;
    else path += path === "" ? segment : `.${segment}`;
  }
  return path === "" ? ROOT_PATH : path;
}

/** Builds the error for `path` with the given reason. */
export function configError(path: string, reason: string): ConfigError {
  return { path, message: `${path}: ${reason}` };
}

/** A failed {@link CheckResult} with a single problem. */
export function fail(path: string, reason: string): CheckResult<never> {
  return { ok: false, errors: [configError(path, reason)] };
}

/**
 * Turns zod issues into errors whose paths start at `prefix`. Each unknown key is reported under
 * its own path (`helpers[0].shell: unknown key`).
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): ConfigError[] {
  return issues.flatMap((issue) => {
    const at = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => configError(formatPath([...at, key]), "unknown key"));
    }
    // A bad record key nests its own issues; their messages say what is wrong with the key.
    const reason = issue.code === "invalid_key" ? `invalid key: ${issue.issues.map((i) => i.message).join("; ")}` : issue.message;
    return [configError(formatPath(at), reason)];
  });
}

/** A per-parse zod error map: says "is required" instead of "expected string, received undefined". */
export function requiredMessage(issue: z.core.$ZodRawIssue): string | undefined {
  return issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined;
}

/**
 * Any value, refusing an object with an own `__proto__` key (as `JSON.parse` makes them). Pipe it
 * into a `z.record`, which would otherwise skip that key without a word.
 */
export const WithoutProtoKey = z.unknown().superRefine((input, ctx) => {
  if (typeof input === "object" && input !== null && Object.hasOwn(input, "__proto__")) {
    ctx.addIssue({ code: "custom", path: ["__proto__"], message: "is not allowed as a key" });
  }
});
