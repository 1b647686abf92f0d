import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ContainerInfo } from "dockerode";
import { Redis } from "ioredis";
import { startComposeDaemon, type ComposeDaemon } from "../support/compose-daemon.js";
import { writeComposeDeployment, type ComposeDeployment } from "../support/compose-deployment.js";
import { composeProject, type ComposeProject } from "../support/compose-project.js";
import { startGitHttpServer, type GitHttpServer } from "../support/git-http-server.js";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { BASE_IMAGE } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { sendWebhook } from "../support/webhook-client.js";
import { APP_ID } from "../e2e/fleet-harness.js";

const run = promisify(execFile);
const BUILD = fileURLToPath(new URL("../../infra/containers/build.sh", import.meta.url));
const SERVICE_IMAGES = ["redis", "api", "worker"].map((name) => `localhost/reviewbot/${name}:latest`);
const ROOT_DOCKER_OVERRIDE = "infra/compose/root-docker-socket.override.yml";
/** The group the test daemon's socket belongs to; the workers join it through the override. */
const DOCKER_SOCKET_GID = 2375;
const WORKERS = 2;

/**
 * docker-compose.yml brought up for real on a private dockerd: the images built by
 * infra/containers/build.sh, a deployment directory made as docs/deployment.md says, Redis, the api
 * and two workers (their helpers on the same daemon through infra/compose/root-docker-socket.override.yml),
 * the GitHub API and git hosting stood in for on the address the containers reach the host at.
 */
export interface ComposedStack {
  readonly daemon: ComposeDaemon;
  readonly project: ComposeProject;
  readonly deployment: ComposeDeployment;
  readonly github: GitHubStandIn;
  readonly git: GitHttpServer;
  /** Scratch directory: deployment, clone cache, hosted repositories. */
  readonly root: string;
  readonly gitRoot: string;
  /** The api as published on the host (`127.0.0.1:<random port>`). */
  readonly apiUrl: string;
  /** Redis inside the stack as its operator (`default` user), over the backend network's bridge. */
  readonly redis: Redis;
  /** Bridge interfaces of the project's networks on the host. */
  readonly bridges: readonly string[];
  /** Sends a delivery to the composed api, signed with the deployment's secret unless told otherwise. */
  deliver(event: string, body: unknown, deliveryId: string, headers?: Readonly<Record<string, string>>): Promise<{ status: number; body: string }>;
  /** Every service's logs (`docker-compose logs`). */
  logs(): Promise<string>;
  /** The logs `logs()` read last (what check-runs.ts shows when a check run never comes). */
  allLogs(): string;
  /** `down -v`, then the stand-ins, then the daemon and the scratch directory. Idempotent. */
  stop(): Promise<void>;
}

export async function startComposedStack(repositories: Readonly<Record<string, number>>): Promise<ComposedStack> {
  // The apps' dist/ as the suites run it (built by `pnpm turbo run build`, as setup.sh does); the
  // runtime and redis images are skipped when their inputs are unchanged.
  await run("bash", [BUILD, "--no-build"], { maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60_000 });
  const root = await reachableTempDir("compose");
  const daemon = await startComposeDaemon([BASE_IMAGE, ...SERVICE_IMAGES], DOCKER_SOCKET_GID).catch(async (err: unknown) => {
    await rm(root, { recursive: true, force: true });
    throw err;
  });
  const cache = join(root, "cache");
  const gitRoot = join(root, "git");
  await mkdir(cache);
  await chown(cache, 10001, 10001);
  await mkdir(join(root, "git-home"), { recursive: true });
  await mkdir(gitRoot);
  const key = generateTestAppKey();
  const deployment = await writeComposeDeployment(join(root, "deploy"), key.privateKey);
  const project = composeProject({
    name: `rbcompose${randomBytes(4).toString("hex")}`,
    files: ["docker-compose.yml", ROOT_DOCKER_OVERRIDE],
    docker: daemon.docker,
    socketPath: daemon.socketPath,
    env: {
      REVIEWBOT_DEPLOY_DIR: deployment.dir,
      REVIEWBOT_HOST_CACHE_DIR: cache,
      // A random free port on the host's loopback.
      REVIEWBOT_PUBLISH: "127.0.0.1:",
      REVIEWBOT_DOCKER_SOCKET_PATH: daemon.socketPath,
      REVIEWBOT_DOCKER_GID: String(DOCKER_SOCKET_GID),
      XDG_RUNTIME_DIR: root,
    },
  });
  let github: GitHubStandIn | undefined;
  let git: GitHttpServer | undefined;
  let redis: Redis | undefined;
  let lastLogs = "";
  let stopped = false;
  const logs = async (): Promise<string> => (lastLogs = (await project.tryCompose(["logs", "--no-color"])).output);
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    redis?.disconnect();
    await project.tryCompose(["down", "-v", "--timeout", "60"]);
    await git?.close();
    await github?.close();
    await daemon.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    // Redis first: `up` creates the project's networks, whose egress gateway the stand-ins listen on.
    await project.compose(["up", "-d", "redis"]);
    const networks = await daemon.docker.listNetworks({ filters: { label: [`com.docker.compose.project=${project.name}`] } });
    const egress = networks.find((network) => network.Name === `${project.name}_egress`);
    const gateway = egress?.IPAM?.Config?.[0]?.Gateway;
    if (gateway === undefined) throw new Error(`no gateway on ${project.name}_egress: ${JSON.stringify(networks)}`);
    github = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories, host: gateway });
    const standIn = github;
    git = await startGitHttpServer({
      projectRoot: gitRoot,
      username: "x-access-token",
      token: (password) => standIn.state.tokens.has(password),
      home: join(root, "git-home"),
      host: gateway,
    });
    await deployment.writeEnv("api", { GITHUB_APP_ID: String(APP_ID), GITHUB_API_URL: github.url, REVIEWBOT_REVIEW_COMMENTS: "on" });
    await deployment.writeEnv("worker", { REVIEWBOT_GIT_URL: git.url });
    // Waits for Redis and the api to be healthy (depends_on), then starts the workers.
    await project.compose(["up", "-d", "--scale", `worker=${WORKERS}`]);
    await waitForHealthy(project, WORKERS);
    const apiUrl = `http://${(await project.compose(["port", "api", "3000"])).trim()}`;
    const redisIp = await serviceAddress(project, "redis", `${project.name}_backend`);
    redis = new Redis({ host: redisIp, port: 6379, password: deployment.redisAdminPassword, maxRetriesPerRequest: 1, lazyConnect: true });
    await redis.connect();
    const connection = redis;
    return {
      daemon,
      project,
      deployment,
      github,
      git,
      root,
      gitRoot,
      apiUrl,
      redis: connection,
      bridges: networks.map((network) => `br-${network.Id.slice(0, 12)}`),
      deliver: (event, body, deliveryId, headers) =>
        sendWebhook(`${apiUrl}/api/github/webhooks`, {
          event,
          deliveryId,
          body,
          secret: deployment.webhookSecret,
          ...(headers === undefined ? {} : { headers }),
        }),
      logs,
      allLogs: () => lastLogs,
      stop,
    };
  } catch (err) {
    await logs().catch(() => "");
    await stop();
    throw new Error(`the composed stack did not come up: ${(err as Error).message}\n${lastLogs.slice(-8000)}`, { cause: err });
  }
}

/** Polls until every container of the project reports healthy, `workers` of them workers. */
async function waitForHealthy(project: ComposeProject, workers: number, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = (await project.containers()).map((container) => ({ service: serviceOf(container), state: container.State, status: container.Status }));
    // `restart: unless-stopped` would start a failing container again and again: fail at once.
    if (states.some((state) => state.state !== "running")) throw new Error(`a container stopped: ${JSON.stringify(states)}`);
    const healthy = states.filter((state) => state.status.includes("(healthy)"));
    if (healthy.length === states.length && states.filter((state) => state.service === "worker").length === workers) return;
    if (Date.now() > deadline) throw new Error(`not all healthy after ${timeoutMs} ms: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The Compose service a container belongs to. */
export function serviceOf(container: ContainerInfo): string {
  return container.Labels["com.docker.compose.service"] ?? "";
}

/** The address of `service`'s (first) container on `network`. */
async function serviceAddress(project: ComposeProject, service: string, network: string): Promise<string> {
  const container = (await project.containers()).find((candidate) => serviceOf(candidate) === service);
  const address = container?.NetworkSettings.Networks[network]?.IPAddress;
  if (address === undefined || address === "") throw new Error(`${service} has no address on ${network}`);
  return address;
}
