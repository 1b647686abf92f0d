import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CONTAINERS_CONF } from "../support/sandbox-specs.js";

const run = promisify(execFile);

const NPM_VERSION = "9.9.4";
/**
 * The node helper image plus npm (the helper images ship node without npm). Built from the npm
 * registry's tarball the first time, reused afterwards; the build may use the network (only
 * sandboxed runs may not: docs/architecture.md, 'Host facts': image builds may use the network).
 */
export const NPM_IMAGE = `localhost/reviewbot-test/node-npm:${NPM_VERSION}`;

const CONTAINERFILE = `FROM localhost/reviewbot/node:latest
USER 0:0
COPY package /usr/local/lib/npm
RUN ln -s /usr/local/lib/npm/bin/npm-cli.js /usr/local/bin/npm
USER 10001:10001
`;

/** Builds {@link NPM_IMAGE} unless it is present. Podman runs outside the repository (conmon's `oom` file). */
export async function ensureNpmImage(): Promise<void> {
  const env = { ...process.env, CONTAINERS_CONF };
  const present = await run("podman", ["image", "exists", NPM_IMAGE], { env, cwd: tmpdir() }).then(
    () => true,
    () => false,
  );
  if (present) return;
  const context = await mkdtemp(join(tmpdir(), "reviewbot-npm-image-"));
  try {
    await run("npm", ["pack", `npm@${NPM_VERSION}`, "--silent"], { cwd: context, env: process.env });
    await run("tar", ["xzf", `npm-${NPM_VERSION}.tgz`], { cwd: context });
    await writeFile(join(context, "Containerfile"), CONTAINERFILE);
    await run("podman", ["build", "-q", "-t", NPM_IMAGE, "."], { cwd: context, env, maxBuffer: 16 * 1024 * 1024 });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
