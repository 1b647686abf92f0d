import { configError, fail, quote, type CheckResult, type ConfigError } from "./config-error.js";
import { packageSpecProblem, type PackageManager } from "./package-spec.js";

/** The most entries an `install` argv may have. */
export const MAX_INSTALL_ENTRIES = 64;

/** A checked install hook: which manager it drives and the argv to run (in its own sandbox). */
export interface InstallSpec {
  readonly manager: PackageManager;
  readonly argv: readonly string[];
}

interface Installer {
  readonly prefix: readonly string[];
  readonly manager: PackageManager;
  /** `npm ci` installs the lockfile and takes no package names; the others need at least one. */
  readonly takesPackages: boolean;
}

const INSTALLERS: readonly Installer[] = [
  { prefix: ["pip", "install"], manager: "pip", takesPackages: true },
  { prefix: ["pip3", "install"], manager: "pip", takesPackages: true },
  { prefix: ["python3", "-m", "pip", "install"], manager: "pip", takesPackages: true },
  { prefix: ["npm", "install"], manager: "npm", takesPackages: true },
  { prefix: ["npm", "ci"], manager: "npm", takesPackages: false },
];

// Compared to the whole entry: `--omit=dev` is allowed, `--omit=peer` and `-qq` are not.
const ALLOWED_FLAGS: Record<PackageManager, ReadonlySet<string>> = {
  pip: new Set([
    "--no-deps",
    "--only-binary=:all:",
    "--no-cache-dir",
    "-q",
    "--quiet",
    "--disable-pip-version-check",
    "--require-hashes",
    "--no-compile",
    // Upgrade what the target already holds: it only replaces packages in our own --target
    // directory (installPlan appends it), and installs nothing a plain install would not.
    "-U",
    "--upgrade",
  ]),
  npm: new Set(["--no-audit", "--no-fund", "--omit=dev", "--omit=optional", "--silent", "--no-save", "--ignore-scripts"]),
};

// Reasons for the refused flags people are likely to try; any other flag is "not allowed" too.
const REFUSED_FLAG_GROUPS: readonly { readonly reason: string; readonly flags: readonly string[] }[] = [
  { reason: "installs local code in editable mode", flags: ["-e", "--editable"] },
  {
    reason: "reads a requirements or constraints file, which would come from the untrusted PR tree",
    flags: ["-r", "--requirement", "-c", "--constraint"],
  },
  {
    reason: "overrides the package index or registry",
    flags: ["-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host", "--registry", "--userconfig", "--globalconfig"],
  },
  {
    reason: "writes outside the install target",
    flags: ["-t", "--target", "--prefix", "--root", "--user", "--src", "-g", "--global", "--location", "--cache"],
  },
  { reason: "makes npm run scripts with a shell the config chooses", flags: ["--script-shell"] },
];
const REFUSED_FLAGS = new Map(REFUSED_FLAG_GROUPS.flatMap(({ reason, flags }) => flags.map((flag) => [flag, reason] as const)));

/**
 * Install hook hardening: `install` must be `pip install`, `pip3 install`, `python3 -m pip install`,
 * `npm install` or `npm ci`, followed only by allowlisted flags and registry package specs (see
 * `packageSpecProblem`). Every bad entry is reported with its index. The result for npm always
 * contains `--ignore-scripts`, so that no dependency runs a lifecycle script.
 *
 * @param field the path of the `install` array in the config, for messages.
 */
export function checkInstallSpec(argv: readonly string[], field: string): CheckResult<InstallSpec> {
  if (argv.length > MAX_INSTALL_ENTRIES) {
    return fail(field, `has ${argv.length} entries; at most ${MAX_INSTALL_ENTRIES} are allowed`);
  }
  const installer = INSTALLERS.find(({ prefix }) => prefix.every((word, i) => argv[i] === word));
  if (installer === undefined) {
    const known = INSTALLERS.map(({ prefix }) => prefix.join(" ")).join(", ");
    return fail(field, `${quote(argv.slice(0, 4).join(" "))} is not an allowed installer; start with one of: ${known}`);
  }
  const errors: ConfigError[] = [];
  let packages = 0;
  argv.forEach((entry, index) => {
    if (index < installer.prefix.length) return;
    const reason = entry.startsWith("-") ? flagProblem(entry, installer.manager) : specProblem(entry, installer);
    if (reason !== undefined) errors.push(configError(`${field}[${index}]`, `${quote(entry)} ${reason}`));
    if (!entry.startsWith("-")) packages += 1;
  });
  if (installer.takesPackages && packages === 0) {
    errors.push(configError(field, `names no package to install after ${quote(installer.prefix.join(" "))}`));
  }
  if (errors.length > 0) return { ok: false, errors };
  const addIgnoreScripts = installer.manager === "npm" && !argv.includes("--ignore-scripts");
  const hardened = addIgnoreScripts ? [...argv, "--ignore-scripts"] : argv;
  return { ok: true, value: { manager: installer.manager, argv: hardened } };
}

function flagProblem(entry: string, manager: PackageManager): string | undefined {
  if (ALLOWED_FLAGS[manager].has(entry)) return undefined;
  // `--index-url=x` and `-ix` are the same flags as `--index-url x` and `-i x`.
  const name = entry.startsWith("--") ? (entry.split("=")[0] ?? entry) : entry.slice(0, 2);
  return REFUSED_FLAGS.get(name) ?? `is not an allowed ${manager} flag`;
}

function specProblem(entry: string, installer: Installer): string | undefined {
  if (!installer.takesPackages) {
    return `is not allowed: ${installer.prefix.join(" ")} installs the lockfile and takes no package names`;
  }
  return packageSpecProblem(entry, installer.manager);
}
