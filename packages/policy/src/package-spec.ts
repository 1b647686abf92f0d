/** The package managers an install hook may drive. */
export type PackageManager = "pip" | "npm";

interface Refusal {
  readonly pattern: RegExp;
  readonly reason: string;
  readonly only?: PackageManager;
}

// Checked in order, so that a spec gets the most specific reason: `git+https://…` is a VCS
// source before it is a URL. Everything here would install code that is not a released package
// from the operator's registry, or read it from the untrusted PR tree.
const BY_NAME = "install a released version by name";
const LOCAL_PATH = "is a local path, which would come from the untrusted PR tree";
const REFUSALS: readonly Refusal[] = [
  { pattern: /(?:^|@)(?:git\+|git:|github:|gitlab:|bitbucket:|gist:)/i, reason: `is a VCS source; ${BY_NAME}` },
  {
    pattern: /(?:^|@)(?:file|link|workspace|npm|portal|patch):/i,
    reason: "uses a file:, link:, workspace: or npm: protocol (local code or an alias)",
  },
  { pattern: /@/, only: "pip", reason: `is a direct reference (name @ url); ${BY_NAME}` },
  { pattern: /:\/\//, reason: `is a URL; ${BY_NAME}` },
  { pattern: /^(?:\.{1,2}(?:\/|$)|\/|~)/, reason: LOCAL_PATH },
  {
    pattern: /\.(?:tgz|tar|tar\.gz|tar\.bz2|tar\.xz|zip|whl|egg)$/i,
    reason: `is an archive (tarball, wheel or zip); ${BY_NAME}`,
  },
  { pattern: /\//, only: "pip", reason: LOCAL_PATH },
  { pattern: /^[\w.-]+\/[\w.-]+(?:#\S*)?$/, only: "npm", reason: `is GitHub user/repo shorthand; ${BY_NAME}` },
  { pattern: /;/, only: "pip", reason: "has an environment marker (;), which is not allowed" },
];

// PEP 508 names and PEP 440 specifier clauses, without markers or URLs.
const PIP_NAME = "[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?";
const PIP_CLAUSE = "(?:===|~=|==|!=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+";
const PIP_EXTRAS = `\\[${PIP_NAME}(?:,${PIP_NAME})*\\]`;
const PIP_REQUIREMENT = new RegExp(`^${PIP_NAME}(?:${PIP_EXTRAS})?(?:${PIP_CLAUSE}(?:,${PIP_CLAUSE})*)?$`);

// npm names (optionally scoped) with an optional version, range or dist-tag after `@`.
const NPM_NAME = "(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*";
const NPM_SPEC = new RegExp(`^${NPM_NAME}(?:@[A-Za-z0-9.^~<>=|*+_ -]+)?$`);

const GRAMMARS: Record<PackageManager, { readonly pattern: RegExp; readonly expected: string }> = {
  pip: { pattern: PIP_REQUIREMENT, expected: "name, name==1.2.3 or name[extra]>=1,<2" },
  npm: { pattern: NPM_SPEC, expected: "name, name@1.2.3, name@^1 or @scope/name@~2.0.0" },
};

/**
 * Says why `spec` is not a package the install hook may name, or `undefined` when it is one: a
 * registry package by name with an optional version constraint, nothing that points at a URL, a
 * VCS, a local path, an archive or another protocol.
 */
export function packageSpecProblem(spec: string, manager: PackageManager): string | undefined {
  for (const refusal of REFUSALS) {
    const applies = refusal.only === undefined || refusal.only === manager;
    if (applies && refusal.pattern.test(spec)) return refusal.reason;
  }
  const grammar = GRAMMARS[manager];
  if (grammar.pattern.test(spec)) return undefined;
  return `is not a valid ${manager} package spec (expected ${grammar.expected})`;
}
