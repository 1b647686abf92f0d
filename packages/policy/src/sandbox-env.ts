import { AppError } from "@reviewbot/core/errors";
import { quote } from "./config-error.js";

/**
 * The environment every sandboxed process starts from. `PATH` is fixed and holds no `.` or
 * worktree directory, so a bare program name never resolves to a file of the PR.
 */
export const SANDBOX_BASE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/tmp",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp",
  CI: "true",
  NO_COLOR: "1",
});

const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const MAX_ENV_VALUE_LENGTH = 4096;

// Explicit names that may be added: our own `REVIEWBOT_*` and a few harmless output switches.
// NODE_OPTIONS is deliberately absent: `--require`/`--import` load arbitrary code.
const ALLOWED_PREFIX = "REVIEWBOT_";
const ALLOWED_NAMES: readonly string[] = ["PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "TZ", "LC_ALL", "TERM"];

// Names that change which code runs; they are outside the allowlist anyway, and are named here so
// that the refusal says why. A trailing `*` matches a prefix.
const REFUSED_NAMES: readonly { readonly reason: string; readonly names: readonly string[] }[] = [
  { reason: "makes the dynamic loader inject or search other libraries", names: ["LD_*", "GCONV_PATH"] },
  {
    reason: "makes a shell run a startup file or change how it parses",
    names: ["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH"],
  },
  {
    reason: "makes Python import or run other code",
    names: ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE"],
  },
  {
    reason: "makes Node.js load other code (--require, --import) or search other module paths",
    names: ["NODE_OPTIONS", "NODE_PATH"],
  },
  { reason: "makes Perl or Ruby load other code", names: ["PERL5LIB", "PERL5OPT", "RUBYLIB", "RUBYOPT"] },
  { reason: "changes git's hooks, config or helpers", names: ["GIT_*"] },
  { reason: "changes the package index, install target or scripts of pip or npm", names: ["PIP_*", "NPM_CONFIG_*"] },
];

// Secrets never enter a sandbox (docs/architecture.md, layer 4: workers are untrusted clients of
// the api), not even under our own prefix. Matched against the `_`-separated words of a name, so
// REVIEWBOT_API_KEY is caught and KEYWORDS is not.
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "KEY",
  "APIKEY",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
  "PRIVATE",
  "COOKIE",
]);

/**
 * Builds a sandbox's environment from {@link SANDBOX_BASE_ENV} plus `explicit` values whose names
 * are allowlisted: `REVIEWBOT_*`, PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED, PYTHONIOENCODING, TZ,
 * LC_ALL, TERM. It never reads `process.env`: its only input is its argument. The base variables
 * cannot be overridden, names that look like secrets are refused, and values must be at most
 * 4096 characters without NUL.
 *
 * @throws AppError `POLICY_DENIED` naming the variable and the reason.
 */
export function buildSandboxEnv(explicit: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const env: Record<string, string> = { ...SANDBOX_BASE_ENV };
  for (const [name, value] of Object.entries(explicit)) {
    const reason = nameProblem(name) ?? valueProblem(value);
    if (reason !== undefined) {
      const field = ENV_NAME.test(name) ? `env.${name}` : `env[${quote(name)}]`;
      throw new AppError("POLICY_DENIED", `${field}: ${reason}`, { details: { variable: field } });
    }
    env[name] = value;
  }
  return Object.freeze(env);
}

function nameProblem(name: string): string | undefined {
  if (!ENV_NAME.test(name)) return `is not a valid variable name (${String(ENV_NAME)})`;
  if (Object.hasOwn(SANDBOX_BASE_ENV, name)) return "is fixed by the sandbox and cannot be overridden";
  const matches = (pattern: string) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern);
  const refused = REFUSED_NAMES.find(({ names }) => names.some(matches));
  if (refused !== undefined) return refused.reason;
  const secret = name.split("_").some((word) => SECRET_WORDS.has(word));
  if (secret) return "looks like a secret, and secrets never enter a sandbox";
  if (name.startsWith(ALLOWED_PREFIX) || ALLOWED_NAMES.includes(name)) return undefined;
  return `is not in the sandbox environment allowlist (${[`${ALLOWED_PREFIX}*`, ...ALLOWED_NAMES].join(", ")})`;
}

function valueProblem(value: string): string | undefined {
  if (value.includes("\0")) return "value contains a NUL byte";
  if (value.length > MAX_ENV_VALUE_LENGTH) {
    return `value is ${value.length} characters long, at most ${MAX_ENV_VALUE_LENGTH} allowed`;
  }
  return undefined;
}
