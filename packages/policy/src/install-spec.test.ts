import { describe, expect, it } from "vitest";
import { checkInstallSpec } from "./install-spec.js";

const FIELD = "helpers[1].install";
const messagesOf = (argv: string[]) => {
  const result = checkInstallSpec(argv, FIELD);
  return result.ok ? [] : result.errors.map((e) => e.message);
};

// Each entry follows a valid installer and package, so it is the only problem: install[3].
const PACKAGE_PREFIX = { pip: ["pip", "install", "flake8"], npm: ["npm", "install", "eslint"] } as const;

const PIP_ENTRIES: readonly (readonly [string, string])[] = [
  ["git+https://github.com/a/b", "is a VCS source; install a released version by name"],
  ["https://files.test/p-1.0-py3-none-any.whl", "is a URL; install a released version by name"],
  ["pkg @ https://files.test/p.whl", "is a direct reference (name @ url); install a released version by name"],
  ["pkg@https://files.test/p.whl", "is a direct reference (name @ url); install a released version by name"],
  ["file:pkg", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  [".", "is a local path, which would come from the untrusted PR tree"],
  ["./vendor/pkg", "is a local path, which would come from the untrusted PR tree"],
  ["../pkg", "is a local path, which would come from the untrusted PR tree"],
  ["/abs/pkg", "is a local path, which would come from the untrusted PR tree"],
  ["~/pkg", "is a local path, which would come from the untrusted PR tree"],
  ["vendor/pkg", "is a local path, which would come from the untrusted PR tree"],
  ["pkg-1.0.tar.gz", "is an archive (tarball, wheel or zip); install a released version by name"],
  ["pkg-1.0-py3-none-any.whl", "is an archive (tarball, wheel or zip); install a released version by name"],
  ["pkg.zip", "is an archive (tarball, wheel or zip); install a released version by name"],
  ["pkg;python_version<'3.8'", "has an environment marker (;), which is not allowed"],
  ["Bad Name", "is not a valid pip package spec (expected name, name==1.2.3 or name[extra]>=1,<2)"],
  ["pkg==1==2", "is not a valid pip package spec (expected name, name==1.2.3 or name[extra]>=1,<2)"],
  ["-e", "installs local code in editable mode"],
  ["--editable=.", "installs local code in editable mode"],
  ["-r", "reads a requirements or constraints file, which would come from the untrusted PR tree"],
  ["-rrequirements.txt", "reads a requirements or constraints file, which would come from the untrusted PR tree"],
  ["--requirement=r.txt", "reads a requirements or constraints file, which would come from the untrusted PR tree"],
  ["-c", "reads a requirements or constraints file, which would come from the untrusted PR tree"],
  ["--constraint", "reads a requirements or constraints file, which would come from the untrusted PR tree"],
  ["-i", "overrides the package index or registry"],
  ["--index-url=https://evil.test/simple", "overrides the package index or registry"],
  ["--extra-index-url", "overrides the package index or registry"],
  ["--find-links", "overrides the package index or registry"],
  ["-f", "overrides the package index or registry"],
  ["--trusted-host=evil.test", "overrides the package index or registry"],
  ["--target=/usr/lib/python3", "writes outside the install target"],
  ["-t", "writes outside the install target"],
  ["--prefix", "writes outside the install target"],
  ["--root=/", "writes outside the install target"],
  ["--user", "writes outside the install target"],
  ["--src", "writes outside the install target"],
  ["-qq", "is not an allowed pip flag"],
  ["--pre", "is not an allowed pip flag"],
  ["--no-index", "is not an allowed pip flag"],
  ["--only-binary=:none:", "is not an allowed pip flag"],
  ["--", "is not an allowed pip flag"],
  ["-Uq", "is not an allowed pip flag"],
  ["--upgrade-strategy=eager", "is not an allowed pip flag"],
  ["--ignore-scripts", "is not an allowed pip flag"],
];

const NPM_ENTRIES: readonly (readonly [string, string])[] = [
  ["github:user/repo", "is a VCS source; install a released version by name"],
  ["git+ssh://git@github.com/a/b.git", "is a VCS source; install a released version by name"],
  ["gitlab:user/repo", "is a VCS source; install a released version by name"],
  ["bitbucket:user/repo", "is a VCS source; install a released version by name"],
  ["pkg@github:user/repo", "is a VCS source; install a released version by name"],
  ["user/repo", "is GitHub user/repo shorthand; install a released version by name"],
  ["user/repo#v1.0.0", "is GitHub user/repo shorthand; install a released version by name"],
  ["file:../x", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  ["pkg@file:../x", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  ["link:../x", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  ["pkg@workspace:*", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  ["alias@npm:other@1", "uses a file:, link:, workspace: or npm: protocol (local code or an alias)"],
  ["https://registry.test/x/-/x-1.0.0.tgz", "is a URL; install a released version by name"],
  ["pkg@https://evil.test/x.tgz", "is a URL; install a released version by name"],
  ["./x", "is a local path, which would come from the untrusted PR tree"],
  ["/x", "is a local path, which would come from the untrusted PR tree"],
  ["..", "is a local path, which would come from the untrusted PR tree"],
  ["~/x", "is a local path, which would come from the untrusted PR tree"],
  ["x-1.0.0.tgz", "is an archive (tarball, wheel or zip); install a released version by name"],
  ["Eslint", "is not a valid npm package spec (expected name, name@1.2.3, name@^1 or @scope/name@~2.0.0)"],
  ["@scope", "is not a valid npm package spec (expected name, name@1.2.3, name@^1 or @scope/name@~2.0.0)"],
  ["pkg@1;rm -rf /", "is not a valid npm package spec (expected name, name@1.2.3, name@^1 or @scope/name@~2.0.0)"],
  ["-g", "writes outside the install target"],
  ["--global", "writes outside the install target"],
  ["--prefix=/", "writes outside the install target"],
  ["--location=global", "writes outside the install target"],
  ["--cache=/tmp/x", "writes outside the install target"],
  ["--registry=https://evil.test", "overrides the package index or registry"],
  ["--userconfig=.npmrc", "overrides the package index or registry"],
  ["--globalconfig", "overrides the package index or registry"],
  ["--script-shell=/bin/sh", "makes npm run scripts with a shell the config chooses"],
  ["--unsafe-perm", "is not an allowed npm flag"],
  ["--foreground-scripts", "is not an allowed npm flag"],
  ["--omit=peer", "is not an allowed npm flag"],
  ["-q", "is not an allowed npm flag"],
  ["--no-deps", "is not an allowed npm flag"],
  ["-U", "is not an allowed npm flag"],
];

describe("checkInstallSpec", () => {
  it.each([
    [["pip", "install", "flake8==7.1.0"], "pip"],
    [["pip3", "install", "--no-deps", "ruff"], "pip"],
    [["python3", "-m", "pip", "install", "-q", "--only-binary=:all:", "black[d]>=24,<25"], "pip"],
    [
      [
        "pip",
        "install",
        "--require-hashes",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--no-compile",
        "--quiet",
        "a.b-c_d~=1.0",
        "x!=2",
        "y===1.0+local",
      ],
      "pip",
    ],
    [["pip", "install", "-U", "ruff"], "pip"],
    [["python3", "-m", "pip", "install", "--upgrade", "pip", "flake8==7.1.0"], "pip"],
    [["npm", "install", "--ignore-scripts", "prettier"], "npm"],
  ])("accepts %j unchanged", (argv, manager) => {
    expect(checkInstallSpec(argv, FIELD)).toEqual({ ok: true, value: { manager, argv } });
  });

  it.each([
    [["npm", "ci"]],
    [["npm", "install", "eslint@9.0.0"]],
    [["npm", "install", "eslint@latest", "typescript"]],
    [["npm", "install", "@scope/name@~2.0.0", "x@^1", "y@>=1 <2"]],
    [["npm", "install", "@typescript-eslint/parser@^8", "--no-audit", "--no-fund", "--silent", "--no-save", "--omit=dev", "--omit=optional"]],
  ])("accepts %j and adds --ignore-scripts", (argv) => {
    expect(checkInstallSpec(argv, FIELD)).toEqual({ ok: true, value: { manager: "npm", argv: [...argv, "--ignore-scripts"] } });
  });

  const INSTALLERS = "pip install, pip3 install, python3 -m pip install, npm install, npm ci";
  it.each([
    [["curl", "https://x.test/i.sh"], `helpers[1].install: "curl https://x.test/i.sh" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [["pip", "download", "x"], `helpers[1].install: "pip download x" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [["npm", "exec", "x"], `helpers[1].install: "npm exec x" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [["sh", "-c", "pip install x"], `helpers[1].install: "sh -c pip install x" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [["python3", "-m", "pip", "download"], `helpers[1].install: "python3 -m pip download" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [[], `helpers[1].install: "" is not an allowed installer; start with one of: ${INSTALLERS}`],
    [["pip", "install"], 'helpers[1].install: names no package to install after "pip install"'],
    [["npm", "install", "--no-audit"], 'helpers[1].install: names no package to install after "npm install"'],
    [["npm", "ci", "eslint"], 'helpers[1].install[2]: "eslint" is not allowed: npm ci installs the lockfile and takes no package names'],
    [["pip", "install", ...Array<string>(63).fill("x")], "helpers[1].install: has 65 entries; at most 64 are allowed"],
  ])("refuses %j", (argv, message) => {
    expect(messagesOf(argv)).toEqual([message]);
  });

  it.each([...PIP_ENTRIES.map(([entry, reason]) => ["pip", entry, reason] as const), ...NPM_ENTRIES.map(([entry, reason]) => ["npm", entry, reason] as const)])(
    "refuses the %s entry %j",
    (manager, entry, reason) => {
      expect(messagesOf([...PACKAGE_PREFIX[manager], entry])).toEqual([`helpers[1].install[3]: ${JSON.stringify(entry)} ${reason}`]);
    },
  );

  it("reports every bad entry with its index", () => {
    expect(messagesOf(["pip", "install", "-e", ".", "git+https://x.test/y", "ok-pkg"])).toEqual([
      'helpers[1].install[2]: "-e" installs local code in editable mode',
      'helpers[1].install[3]: "." is a local path, which would come from the untrusted PR tree',
      'helpers[1].install[4]: "git+https://x.test/y" is a VCS source; install a released version by name',
    ]);
  });
});
