import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * The integration suites in two groups that run at the same time (package.json's `test:engines` and
 * `test:shared`, which turbo starts together):
 *
 * - `engines`: every file that names a container engine (Docker, Podman, Compose, or one of the
 *   engine lists the suites iterate). They share what cannot be shared at once: the one data root of
 *   the suites' private dockerds (test/support/docker-engine.ts), root Podman's store, host-wide
 *   listings of our containers. They run one at a time, as they always have.
 * - `shared`: the rest (real Redis, git, processes, bubblewrap, the stand-ins), two files at a time.
 *   Each starts its own Redis on a free port, its own temporary directories and its own processes,
 *   and bubblewrap's sandbox uids are leased host-wide (HostUidPool), so two files do not meet.
 *
 * A file's group is read from its own text, so a new file lands in the right one without a list to
 * keep; a file that reaches an engine only through a helper must name it (the fleet harness's
 * default engine is bubblewrap).
 */
export type TestGroup = "engines" | "shared";

const NAMES_AN_ENGINE = /docker|podman|compose|_ENGINES\b|useEngine/i;

/** The groups of every `*.test.ts` under `root`, as paths relative to it. */
export function integrationGroups(root: string): Record<TestGroup, string[]> {
  const groups: Record<TestGroup, string[]> = { engines: [], shared: [] };
  for (const file of testFiles(root)) groups[NAMES_AN_ENGINE.test(readFileSync(file, "utf8")) ? "engines" : "shared"].push(relative(root, file));
  return groups;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules") return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}
