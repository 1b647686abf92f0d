import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { expectAppError, jobEntries, openCache } from "../support/clone-cache-harness.js";
import { gitAsync } from "../support/git-env.js";
import { createUpstream, type Upstream } from "../support/git-fixture.js";
import { startGitHttpServer, type GitHttpServer } from "../support/git-http-server.js";
import { watchCommandLines } from "../support/process-watch.js";
import { filesContaining } from "../support/secret-search.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();
const USERNAME = "x-access-token";
const servers: GitHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface HttpFixture {
  readonly root: string;
  readonly upstream: Upstream;
  readonly headSha: string;
  readonly server: GitHttpServer;
  readonly token: string;
  readonly remote: string;
  readonly cacheRoot: string;
}

async function httpFixture(label: string, delayMs = 0): Promise<HttpFixture> {
  const root = await tempDir(label);
  const upstream = createUpstream(root);
  const headSha = upstream.commitOn("fork", (tree) => {
    tree.write("src/pr.ts", "export const overHttp = true;\n");
  });
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  const server = await startGitHttpServer({ projectRoot: root, username: USERNAME, token, home: upstream.home, delayMs });
  servers.push(server);
  return { root, upstream, headSha, server, token, remote: `${server.url}/upstream`, cacheRoot: join(root, "cache") };
}

describe("credentials for an authenticated git host", () => {
  it("negative controls: the server requires the token, and a token in argv is seen by the watcher", async () => {
    const { root, upstream, remote, token } = await httpFixture("http-control", 150);

    const anonymous = await gitAsync(upstream.home, root, ["ls-remote", remote]);
    const watch = watchCommandLines();
    const leaky = await gitAsync(upstream.home, root, ["ls-remote", remote.replace("http://", `http://${USERNAME}:${token}@`)]);
    const commandLines = await watch.stop();

    expect(anonymous.exitCode).not.toBe(0);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    expect(leaky.exitCode).toBe(0);
    expect(leaky.stdout).toContain("refs/heads/fork");
    expect(commandLines.some((line) => line.includes(token))).toBe(true);
  });

  it("fetches with credentials, and the token is in no file and no command line", async () => {
    const fixture = await httpFixture("http-token", 150);
    const cache = await openCache(fixture.cacheRoot, { allowedProtocols: ["http"] });
    const watch = watchCommandLines();

    const co = await cache
      .checkout({
        remote: fixture.remote,
        head: { ref: "fork", sha: fixture.headSha },
        base: { ref: "main" },
        credentials: { username: USERNAME, password: fixture.token },
      })
      .finally(() => watch.stop());
    const commandLines = await watch.stop();

    expect(readFileSync(join(co.dir, "src/pr.ts"), "utf8")).toBe("export const overHttp = true;\n");
    expect(fixture.server.requests.some((request) => request.authorized && request.path.endsWith("/git-upload-pack"))).toBe(true);
    // The watcher saw the fetch itself, so its silence about the token means something.
    expect(commandLines.some((line) => line.includes("fetch") && line.includes(fixture.remote))).toBe(true);
    expect(commandLines.filter((line) => line.includes(fixture.token))).toEqual([]);
    // The search reads the work tree, the mirror's objects (zlib-compressed) and config, and HOME.
    expect(filesContaining(fixture.cacheRoot, "overHttp")).toEqual([join(co.dir, "src/pr.ts")]);
    expect(filesContaining(fixture.cacheRoot, fixture.token)).toEqual([]);
    await co.release();
    expect(filesContaining(fixture.cacheRoot, fixture.token)).toEqual([]);
  });

  it("without credentials fails at once (no prompt, no hang) and leaves no job", async () => {
    const fixture = await httpFixture("http-anonymous");
    const cache = await openCache(fixture.cacheRoot, { allowedProtocols: ["http"], gitTimeoutMs: 20_000 });

    const error = await expectAppError(cache.checkout({ remote: fixture.remote, head: { ref: "fork" }, base: { ref: "main" } }), "GIT_FAILED");

    expect(error.message).toMatch(/terminal prompts disabled|could not read Username/);
    expect(fixture.server.requests.length).toBeGreaterThan(0);
    expect(fixture.server.requests.every((request) => !request.authPresent && request.status === 401)).toBe(true);
    expect(await jobEntries(fixture.cacheRoot)).toEqual([]);
  });

  it("a wrong token fails, and neither token appears in the error or the cache", async () => {
    const fixture = await httpFixture("http-wrong");
    const wrong = `ghs_${randomBytes(18).toString("hex")}`;
    const scrubber = new SecretScrubber();
    scrubber.register(wrong);
    const cache = await openCache(fixture.cacheRoot, { allowedProtocols: ["http"], scrubber });

    const error = await expectAppError(
      cache.checkout({ remote: fixture.remote, head: { ref: "fork" }, base: { ref: "main" }, credentials: { username: USERNAME, password: wrong } }),
      "GIT_FAILED",
    );

    expect(error.message).toMatch(/Authentication failed/);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(wrong);
    expect(fixture.server.requests.some((request) => request.authPresent && !request.authorized)).toBe(true);
    expect(filesContaining(fixture.cacheRoot, wrong)).toEqual([]);
  });

  it("a missing ref over authenticated HTTP is REF_NOT_FOUND without the token in the message", async () => {
    const fixture = await httpFixture("http-missing-ref");
    const cache = await openCache(fixture.cacheRoot, { allowedProtocols: ["http"] });

    const error = await expectAppError(
      cache.checkout({
        remote: fixture.remote,
        head: { ref: "refs/pull/9/head" },
        base: { ref: "main" },
        credentials: { username: USERNAME, password: fixture.token },
      }),
      "REF_NOT_FOUND",
    );

    expect(error.message).not.toContain(fixture.token);
    expect(filesContaining(fixture.cacheRoot, fixture.token)).toEqual([]);
  });
});
