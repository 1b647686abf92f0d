import { randomUUID } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, startModelStandIn, type ModelStandIn } from "@reviewbot/llm/testing/model-stand-in";
import { runAction, type ActionRun } from "../support/action-runner.js";
import { startActionStand, type ActionStand } from "../support/action-stand.js";
import { startComposeDaemon, type ComposeDaemon } from "../support/compose-daemon.js";
import type { Upstream } from "../support/git-fixture.js";
import { createReviewRepo, printingHelper } from "../support/review-repos.js";
import { CONTAINERS_CONF } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// The action prepares the helper images on the runner (issue 24): an `image-cache` directory
// (what actions/cache restores) holding `podman save`d images and their ids is loaded into the
// runner's Docker (a fresh private dockerd here, named by DOCKER_HOST), and `sandbox: require`
// runs the trusted helper there; a cache whose manifest does not match what it loaded is refused.

const REPOSITORY = "octo/widgets";
const KEY = `sk-canary-${randomUUID()}`;
const TRUSTED = `TRUSTED-HELPER-${randomUUID()}`;
const IMAGES = ["localhost/reviewbot/base:latest", "localhost/reviewbot/python:latest", "localhost/reviewbot/node:latest"];
const exec = promisify(execFile);

let root = "";
let upstream: Upstream;
let model: ModelStandIn;
let stand: ActionStand;
let docker: ComposeDaemon;
let runs = 0;

beforeAll(async () => {
  root = await reachableTempDir("action-images");
  model = await startModelStandIn({ apiKey: KEY });
  upstream = createReviewRepo(join(root, "source"), {
    helpers: [printingHelper("trusted", [`src/calc.ts:2: ${TRUSTED}`])],
    fork: (tree) => {
      tree.write("src/calc.ts", "export const one = 1;\nexport const two = 3;\n");
    },
  });
  upstream.git(["update-ref", "refs/pull/7/head", upstream.rev("fork")]);
  stand = await startActionStand(root, REPOSITORY, upstream);
  stand.github.setPullRequest(REPOSITORY, { number: 7, headSha: upstream.rev("fork"), baseSha: upstream.rev("main"), baseRef: "main", title: "One", body: "" });
  // The runner's Docker: a fresh daemon without any image.
  docker = await startComposeDaemon([], 0);
  // What an earlier run saved into the cache (the action's own build does the same, as root).
  const cache = join(root, "cache");
  await mkdir(cache);
  const podman = { env: { ...process.env, CONTAINERS_CONF }, maxBuffer: 1024 * 1024, encoding: "utf8" as const };
  await exec(
    "podman",
    ["save", "--quiet", "--multi-image-archive", "--format", "docker-archive", "--output", join(cache, "reviewbot-images.tar"), ...IMAGES],
    podman,
  );
  const ids = await Promise.all(
    IMAGES.map(async (image): Promise<[string, string]> => [
      image,
      `sha256:${(await exec("podman", ["image", "inspect", "--format", "{{.Id}}", image], podman)).stdout.trim()}`,
    ]),
  );
  await writeFile(join(cache, "reviewbot-images.json"), JSON.stringify({ version: 1, images: Object.fromEntries(ids) }));
  // The same archive under a manifest that says another image is the node image.
  const tampered = join(root, "tampered");
  await mkdir(tampered);
  await symlink(join(cache, "reviewbot-images.tar"), join(tampered, "reviewbot-images.tar"));
  const manifest = JSON.parse(await readFile(join(cache, "reviewbot-images.json"), "utf8")) as { images: Record<string, string> };
  manifest.images["localhost/reviewbot/node:latest"] = manifest.images["localhost/reviewbot/base:latest"] ?? "";
  await writeFile(join(tampered, "reviewbot-images.json"), JSON.stringify({ version: 1, images: manifest.images }));
}, 180_000);

afterAll(async () => {
  await (docker as ComposeDaemon | undefined)?.stop();
  await (stand as ActionStand | undefined)?.close();
  await (model as ModelStandIn | undefined)?.close();
  await rm(root, { recursive: true, force: true });
});

async function run(imageCache: string): Promise<ActionRun> {
  runs += 1;
  const dir = join(root, `run-${String(runs)}`);
  await mkdir(dir);
  model.script([reply.toolCall("submit_review", { summary: "Fine.", findings: [] })]);
  return runAction({
    dir,
    event: {
      name: "pull_request",
      payload: {
        action: "synchronize",
        number: 7,
        pull_request: { number: 7, state: "open", head: { sha: upstream.rev("fork") } },
        repository: { full_name: REPOSITORY },
      },
    },
    inputs: {
      "github-token": stand.token,
      "fail-level": "none",
      sandbox: "require",
      engine: "auto",
      "image-cache": imageCache,
      "llm-protocol": "openai",
      "llm-base-url": model.url("openai"),
      "llm-model": "stand-in-coder",
      "llm-api-key": KEY,
    },
    env: {
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_API_URL: stand.github.url,
      GITHUB_SERVER_URL: stand.git.url,
      RUNNER_TEMP: join(root, `runner-temp-${String(runs)}`),
      DOCKER_HOST: `unix://${docker.socketPath}`,
    },
  });
}

const sandboxRuns = (result: ActionRun): { helper: string; engine?: string }[] =>
  result.stderr
    .split("\n")
    .filter((line) => line.includes('"msg":"sandbox run"'))
    .map((line) => JSON.parse(line) as { helper: string; engine?: string });

describe("helper images from the image cache", () => {
  it("loads them into the runner's Docker and runs the trusted helper there under require", async () => {
    const result = await run(join(root, "cache"));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("helpers are refused");
    expect(sandboxRuns(result).map((entry) => entry.helper)).toEqual(["trusted"]);
    // A read-only token: the finding is a workflow-command annotation.
    expect(result.stdout).toMatch(new RegExp(`^::\\w+ file=[^\\n]*::[^\\n]*${TRUSTED}`, "m"));
    const loaded = await docker.docker.listImages();
    expect(loaded.flatMap((image) => image.RepoTags ?? []).sort()).toEqual([...IMAGES].sort());
  }, 180_000);

  it("refuses a cache whose manifest does not match the images it holds (negative control)", async () => {
    const result = await run(join(root, "tampered"));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^reviewbot: helpers are refused \(sandbox: require\): localhost\/reviewbot\/node:latest from the image cache is sha256:[0-9a-f]{64}, its manifest says/m,
    );
    expect(sandboxRuns(result)).toEqual([]);
    expect(result.summary).not.toContain(TRUSTED);
  }, 180_000);
});
