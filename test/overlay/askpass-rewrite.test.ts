import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openCache } from "../support/clone-cache-harness.js";
import { createUpstream } from "../support/git-fixture.js";
import { startGitHttpServer } from "../support/git-http-server.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();
const USERNAME = "x-access-token";
const CHECKOUTS = 6;

// Another process opening the same cache root (a worker starting, the CLI) writes
// `<cache>/askpass` in its init(). This one does only that, as fast as it can, and prints how many
// times. ESM for `node --input-type=module --eval`; data arrives as argv, never spliced into code.
const REWRITER = `
const [moduleUrl, path] = process.argv.slice(1);
const { writeAskpass } = await import(moduleUrl);
for (let writes = 1; ; writes++) {
  await writeAskpass(path);
  if (writes % 200 === 0) process.stdout.write(writes + "\\n");
}
`;

/** The module init() writes the script with: the package's build output, next to clone-cache.js. */
function askpassModuleUrl(): string {
  return new URL("./askpass.js", pathToFileURL(createRequire(import.meta.url).resolve("@reviewbot/overlay/clone-cache"))).href;
}

describe("the askpass script shared by every process of a cache root", () => {
  it("answers every git run while another process rewrites it (issue 25: no empty or half-written script)", async () => {
    const root = await tempDir("askpass-rewrite");
    const upstream = createUpstream(root);
    const headSha = upstream.commitOn("fork", (tree) => {
      tree.write("src/pr.ts", "export const pr = 1;\n");
    });
    const token = `ghs_${randomBytes(18).toString("hex")}`;
    const server = await startGitHttpServer({ projectRoot: root, username: USERNAME, token, home: upstream.home });
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot, { allowedProtocols: ["http"] });
    const rewriter = spawn(process.execPath, ["--input-type=module", "--eval", REWRITER, askpassModuleUrl(), join(cacheRoot, "askpass")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let rewrites = 0;
    rewriter.stdout.on("data", (chunk: Buffer) => {
      rewrites = Number(chunk.toString("utf8").trim().split("\n").pop());
    });
    const failures: string[] = [];
    try {
      // Rewriting before the first fetch, so that every fetch below races it.
      await new Promise<void>((resolve) =>
        rewriter.stdout.once("data", () => {
          resolve();
        }),
      );
      for (let i = 0; i < CHECKOUTS; i++) {
        const co = await cache
          .checkout({
            remote: `${server.url}/upstream`,
            head: { ref: "fork", sha: headSha },
            base: { ref: "main" },
            credentials: { username: USERNAME, password: token },
          })
          .catch((error: unknown) => {
            failures.push(error instanceof Error ? error.message : String(error));
            return null;
          });
        await co?.release();
      }
    } finally {
      rewriter.kill("SIGKILL");
      await server.close();
    }
    // The race ran: the script was rewritten thousands of times during the fetches, and the git
    // host checked each fetch's credentials.
    expect(rewrites).toBeGreaterThan(CHECKOUTS);
    expect(server.requests.filter((request) => request.authorized && request.path.endsWith("/git-upload-pack")).length).toBeGreaterThanOrEqual(
      CHECKOUTS - failures.length,
    );
    expect(failures, `checkouts failed of ${CHECKOUTS}`).toEqual([]);
  });
});
