import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { createLogger, type Logger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { Report } from "@reviewbot/review/pipeline/report";
import { reviewPullRequest, type ReviewRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { forkRequest, openCache } from "./clone-cache-harness.js";
import { openDockerEngine } from "./docker-engine.js";
import { isolatedGitEnv } from "./git-env.js";
import { CONTAINERS_CONF } from "./sandbox-specs.js";
import { reachableTempDir } from "./temp-dirs.js";

const CREATE_SAMPLE = fileURLToPath(new URL("../../scripts/create-sample-repo.sh", import.meta.url));
const MiB = 1024 * 1024;

/** Small operator ceilings: cheap to hit, yet enough for flake8 and eslint on the sample. */
export const REVIEW_OPERATOR: OperatorPolicy = parseOperatorPolicy({
  limits: { timeoutSeconds: 60, memoryBytes: 512 * MiB, pids: 128, outputBytes: 256 * 1024, tmpfsBytes: 16 * MiB, concurrency: 4 },
});

/** Builds the bundled sample (scripts/create-sample-repo.sh) at `<root>/sample`; returns its path. */
export function createSampleRepo(root: string): string {
  const dir = join(root, "sample");
  execFileSync("bash", [CREATE_SAMPLE, dir], { env: isolatedGitEnv(join(root, "git-home")), stdio: ["ignore", "ignore", "pipe"] });
  return dir;
}

/** A pino logger that writes nothing: the pipeline's logs are not what these suites assert. */
export function silentLogger(): Logger {
  return createLogger({ level: "silent", scrubber: new SecretScrubber() });
}

/** An engine a review suite runs on, with the state it owns. */
export interface OpenedReviewEngine {
  readonly engine: SandboxEngine;
  close(): Promise<void>;
}

export interface ReviewEngineKind {
  readonly name: "podman" | "docker" | "bwrap";
  open(images: readonly string[]): Promise<OpenedReviewEngine>;
}

/**
 * Rootful Podman on a private service, Docker on a private dockerd (the helper images loaded into
 * the suites' shared data root; docker-engine.ts), and bubblewrap over the allowlisted images' rootfs.
 */
export const REVIEW_ENGINES: readonly ReviewEngineKind[] = [
  {
    name: "podman",
    async open() {
      const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-review-podman-"));
      const engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF });
      return { engine, close: () => closeAndRemove(engine, stateDir) };
    },
  },
  {
    name: "docker",
    async open() {
      const fixture = await openDockerEngine("review");
      return { engine: fixture.engine, close: () => fixture.close() };
    },
  },
  {
    name: "bwrap",
    async open(images) {
      const cacheDir = await reachableTempDir("review-bwrap");
      const engine = await BwrapEngine.create({ images, cacheDir });
      return { engine, close: () => closeAndRemove(engine, cacheDir) };
    },
  },
];

async function closeAndRemove(engine: SandboxEngine, dir: string): Promise<void> {
  try {
    await engine.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ReviewOptions {
  readonly filterMode?: FilterMode;
  readonly secrets?: readonly string[];
  readonly pullRequest?: ReviewRequest["pullRequest"];
}

/** A suite's engine and clone cache; `review` runs the pipeline on a fixture's `fork` against `main`. */
export interface ReviewHarness {
  review(upstream: { readonly dir: string }, options?: ReviewOptions): Promise<Report>;
}

/**
 * Opens `kind` and a clone cache of the suite's own under os.tmpdir() before the suite, and closes
 * and removes both after it. Each review gets a unique label.
 */
export function useReviewHarness(kind: ReviewEngineKind, operator: OperatorPolicy = REVIEW_OPERATOR): ReviewHarness {
  let opened: OpenedReviewEngine | undefined;
  let cacheRoot = "";
  let cache: CloneCache | undefined;
  beforeAll(async () => {
    cacheRoot = await reachableTempDir(`review-cache-${kind.name}`);
    cache = await openCache(cacheRoot);
    opened = await kind.open(Object.values(operator.images));
  }, 180_000);
  afterAll(async () => {
    try {
      await opened?.close();
    } finally {
      await rm(cacheRoot, { recursive: true, force: true });
    }
  });
  return {
    async review(upstream, options = {}) {
      if (opened === undefined || cache === undefined) throw new Error("the review harness is not open");
      const request = {
        ...forkRequest(upstream, { label: `${kind.name}-${randomUUID().slice(0, 8)}` }),
        filterMode: options.filterMode ?? "added",
        ...(options.pullRequest === undefined ? {} : { pullRequest: options.pullRequest }),
      };
      return reviewPullRequest(request, { cache, engine: opened.engine, operator, logger: silentLogger(), secrets: options.secrets ?? [] });
    },
  };
}

/**
 * One review per suite: before it, builds a repository with `build` in a fresh directory and
 * reviews its `fork` on `kind`; after it, removes the directory. Returns the report's getter.
 */
export function useReviewOf(kind: ReviewEngineKind, label: string, build: (root: string) => { readonly dir: string }): () => Report {
  const harness = useReviewHarness(kind);
  let root = "";
  let report: Report | undefined;
  beforeAll(async () => {
    root = await reachableTempDir(label);
    report = await harness.review(build(root));
  }, 120_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return () => {
    if (report === undefined) throw new Error(`the ${label} review did not run`);
    return report;
  };
}
