import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startGitHttpServer, type GitHttpServer } from "./git-http-server.js";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "./github-stand-in.js";
import type { Upstream } from "./git-fixture.js";

/** What a simulated runner's action talks to: the GitHub API stand-in and git hosting of one repository. */
export interface ActionStand {
  readonly github: GitHubStandIn;
  readonly git: GitHttpServer;
  /** A fork PR's GITHUB_TOKEN: read-only. */
  readonly token: string;
  close(): Promise<void>;
}

/** The GitHub stand-in with a read-only job token, and `upstream` hosted at `<git.url>/<repository>.git`. */
export async function startActionStand(root: string, repository: string, upstream: Upstream): Promise<ActionStand> {
  const github = await startGitHubStandIn({ appId: 4242, publicKey: generateTestAppKey().publicKey, repositories: { [repository]: 9001 } });
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  const permissions = { contents: "read", metadata: "read", pull_requests: "read" };
  github.state.tokens.set(token, { token, installationId: 77, expiresAt: Date.now() + 3_600_000, repositoryIds: undefined, permissions });
  const [owner = "", name = ""] = repository.split("/");
  await mkdir(join(root, "hosting", owner), { recursive: true });
  execFileSync("git", ["clone", "--quiet", "--mirror", upstream.dir, join(root, "hosting", owner, `${name}.git`)], {
    env: { ...process.env, HOME: upstream.home },
  });
  const git = await startGitHttpServer({
    projectRoot: join(root, "hosting"),
    username: "x-access-token",
    token: (password) => github.state.tokens.has(password),
    home: upstream.home,
  });
  return {
    github,
    git,
    token,
    close: async () => {
      await git.close();
      await github.close();
    },
  };
}
