import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { chown, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { DEPS_MOUNT, installPlan, REGISTRY_MOUNT } from "@reviewbot/policy/install-plan";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { LABELS } from "@reviewbot/sandbox/container-profile";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { DepsCache } from "@reviewbot/sandbox/deps-cache";
import { RegistryProxy, type RegistryDecision } from "@reviewbot/sandbox/registry-proxy";
import type { HelperReport, Report } from "@reviewbot/review/pipeline/report";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { forkRequest, openCache } from "../support/clone-cache-harness.js";
import { REVIEW_ENGINES, REVIEW_OPERATOR, silentLogger } from "../support/review-fixture.js";
import { createReviewRepo, helperEntry, type HelperEntry } from "../support/review-repos.js";
import { CONTAINERS_CONF, TEST_LIMITS } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { containerEvents } from "../support/container-events.js";
import { ensureNpmImage, NPM_IMAGE } from "./install-fixture.js";
import { INSTALL_PROBE } from "./install-probe.js";

const CA_BUNDLE = process.env.NODE_EXTRA_CA_CERTS ?? process.env.SSL_CERT_FILE ?? "/etc/ssl/certs/ca-certificates.crt";
const REGISTRY = "registry.npmjs.org";
const SUFFIX = randomUUID().slice(0, 8);
/** Unique per run: container labels and events are found by helper name. */
const USES_DEP = `uses-dep-${SUFFIX}`;
const INSPECTS = `inspects-${SUFFIX}`;
const INSTALL = ["npm", "install", "is-number@7.0.0", "--no-audit", "--no-fund"];

function operatorWith(installHooks: "off" | "registry"): OperatorPolicy {
  return parseOperatorPolicy({ ...REVIEW_OPERATOR, images: { ...REVIEW_OPERATOR.images, npm: NPM_IMAGE }, installHooks, installRegistries: [REGISTRY] });
}

/** The helper needs the package: it prints is-number's verdict on 5 and on "x". */
const usesDep = (name: string, install: readonly string[] = INSTALL): HelperEntry =>
  helperEntry(name, ["node", "-e", "const isNumber = require('is-number'); console.log(isNumber(5), isNumber('x'))"], { image: "npm", install });

/** Same install (so the same cache entry): reports what the helper sandbox can and cannot do. */
const INSPECT_SCRIPT = [
  "const fs = require('fs'); const net = require('net');",
  "const out = { ifaces: fs.readFileSync('/proc/net/dev', 'utf8').split('\\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean) };",
  "try { fs.writeFileSync('/opt/reviewbot/deps/node/x', 'x'); out.deps = 'writable'; } catch (err) { out.deps = err.code; }",
  "try { fs.rmSync('/opt/reviewbot/deps/node/node_modules/is-number', { recursive: true }); out.remove = 'removed'; } catch (err) { out.remove = err.code; }",
  "out.registryDir = fs.existsSync('/run/reviewbot/registry');",
  "out.path = process.env.PATH; out.nodePath = process.env.NODE_PATH;",
  "const s = net.connect({ host: process.env.REVIEWBOT_NO_SUCH_VAR || '203.0.113.80', port: 443 });",
  "s.on('error', (err) => { out.connect = err.code; console.log(JSON.stringify(out)); });",
  "s.on('connect', () => { out.connect = 'connected'; s.destroy(); console.log(JSON.stringify(out)); });",
].join(" ");

function helper(report: Report, name: string): HelperReport {
  const found = report.helpers.find((h) => h.name === name);
  if (found === undefined) throw new Error(`no helper ${name} in the report`);
  return found;
}

describe("install hooks (rootful Podman, registry-only egress)", () => {
  let root = "";
  let stateDir = "";
  let engine: ContainerEngine;
  let docker: Dockerode;
  let proxy: RegistryProxy;
  let deps: DepsCache;
  let cache: CloneCache;
  const decisions: RegistryDecision[] = [];
  let upstream: { readonly dir: string };

  beforeAll(async () => {
    await ensureNpmImage();
    root = await reachableTempDir("install-hooks");
    stateDir = await mkdtemp(join(tmpdir(), "reviewbot-install-state-"));
    engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF });
    docker = new Dockerode({ socketPath: join(stateDir, "podman.sock") });
    proxy = await RegistryProxy.start({ dir: join(stateDir, "registry"), allowedHosts: [REGISTRY], caBundle: CA_BUNDLE, onDecision: (d) => decisions.push(d) });
    deps = new DepsCache(join(stateDir, "deps"));
    await deps.init();
    cache = await openCache(join(root, "cache"));
    upstream = createReviewRepo(join(root, "repo"), {
      helpers: [usesDep(USES_DEP), helperEntry(INSPECTS, ["node", "-e", INSPECT_SCRIPT], { image: "npm", install: INSTALL })],
      fork: (tree) => {
        tree.write("src/new.js", "module.exports = 1;\n");
      },
    });
  }, 300_000);

  afterAll(async () => {
    await proxy.close();
    await engine.close();
    await rm(stateDir, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  });

  function review(operator: OperatorPolicy, target: { readonly dir: string } = upstream, withRuntime = true, on: SandboxEngine = engine): Promise<Report> {
    const request = { ...forkRequest(target, { label: `install-${randomUUID().slice(0, 8)}` }), filterMode: "nofilter" as const };
    const installHooks = withRuntime ? { registryDir: proxy.dir, cache: deps, images: engine } : undefined;
    return reviewPullRequest(request, {
      cache,
      engine: on,
      operator,
      logger: silentLogger(),
      secrets: [],
      ...(installHooks === undefined ? {} : { installHooks }),
    });
  }

  it("runs the install once in its own sandbox, and the helper requires what it installed", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const report = await review(operatorWith("registry"));
    const used = helper(report, USES_DEP);
    expect(used, used.stderr + used.problems.join("\n")).toMatchObject({ outcome: "passed", stdout: "true false\n", install: { status: "installed" } });
    // Both helpers name the same install: one sandbox ran it (whichever helper came first), the
    // other helper waited for it.
    expect(helper(report, INSPECTS).install?.status).toBe("installed");
    const installs = [
      ...(await containerEvents(docker, LABELS.helper, `${USES_DEP}.install`, since)),
      ...(await containerEvents(docker, LABELS.helper, `${INSPECTS}.install`, since)),
    ];
    expect(installs.filter((action) => action === "create")).toHaveLength(1);
    expect(installs).toContain("start");
    expect(decisions.filter((d) => d.allowed).map((d) => d.target)).toContain(`${REGISTRY}:443`);
  });

  it("a second review reuses the cached install: no install sandbox runs", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const report = await review(operatorWith("registry"));
    expect(helper(report, USES_DEP)).toMatchObject({ outcome: "passed", stdout: "true false\n", install: { status: "cached" } });
    expect(await containerEvents(docker, LABELS.helper, `${USES_DEP}.install`, since)).toEqual([]);
    expect(await containerEvents(docker, LABELS.helper, USES_DEP, since)).toEqual(expect.arrayContaining(["create", "start"]));
  });

  it("the helper sandbox still has no network, and its deps are mounted read-only", async () => {
    const report = await review(operatorWith("registry"));
    const inspects = helper(report, INSPECTS);
    const seen = JSON.parse(inspects.stdout) as Record<string, unknown>;
    expect(seen).toEqual({
      ifaces: ["lo"],
      deps: "EROFS",
      remove: "EROFS",
      registryDir: false,
      path: expect.stringMatching(/^\/opt\/reviewbot\/deps\/node\/node_modules\/\.bin:/) as unknown,
      nodePath: "/opt/reviewbot/deps/node/node_modules",
      connect: "ENETUNREACH",
    });
  });

  it("the install sandbox reaches the allowlisted registry through the proxy and nothing else", async () => {
    const hostIp =
      Object.values(networkInterfaces())
        .flat()
        .find((i) => i?.family === "IPv4" && !i.internal)?.address ?? "192.0.2.2";
    const registryIp = (await lookup(REGISTRY, { family: 4 })).address;
    const accepted: string[] = [];
    const listener: Server = createServer((socket) => {
      accepted.push(String(socket.remoteAddress));
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "0.0.0.0", resolve));
    const address = listener.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const worktree = await reachableTempDir("install-probe");
    const target = await mkdtemp(join(deps.root, "probe-"));
    try {
      await writeFile(join(worktree, "probe.mjs"), INSTALL_PROBE, { mode: 0o644 });
      await chown(target, 10001, 10001);
      const planned = installPlan({ manager: "npm", argv: INSTALL });
      if (!planned.ok) throw new Error(planned.problem);
      // Exactly an install's sandbox (argv up to the forwarder, environment, mounts), running the
      // probe instead of npm.
      const forwarder = planned.plan.argv.slice(0, 4);
      const result = await engine.run({
        argv: [...forwarder, "node", "/work/probe.mjs"],
        image: NPM_IMAGE,
        worktree,
        cwd: ".",
        env: { ...planned.plan.env, REVIEWBOT_REGISTRY_IP: registryIp, REVIEWBOT_HOST_IP: hostIp, REVIEWBOT_HOST_PORT: String(port) },
        limits: TEST_LIMITS,
        labels: { jobId: `install-probe-${SUFFIX}`, helper: "install-probe" },
        mounts: [
          { source: target, target: DEPS_MOUNT, writable: true },
          { source: proxy.dir, target: REGISTRY_MOUNT, writable: false },
        ],
      });
      expect(result.exitCode, result.stderr.toString()).toBe(0);
      const forbidden = "HTTP/1.1 403 Forbidden";
      expect(JSON.parse(result.stdout.toString())).toEqual({
        ifaces: ["lo"],
        directByName: "EAI_AGAIN",
        directByIp: "ENETUNREACH",
        hostListener: "ENETUNREACH",
        refused: {
          "example.com:443": forbidden,
          "registry.npmjs.org:22": forbidden,
          "registry.npmjs.org:80": forbidden,
          [`${registryIp}:443`]: forbidden,
          "localhost:443": forbidden,
          "registry.npmjs.org.evil.example:443": forbidden,
        },
        socketDirect: forbidden,
        plainHttp: 403,
        registry: "HTTP/1.1 200 OK",
        depsTarget: "writable",
        registryDir: "EROFS",
        work: "EROFS",
      });
      expect(accepted).toEqual([]);
    } finally {
      listener.close();
      await rm(worktree, { recursive: true, force: true });
      await rm(target, { recursive: true, force: true });
    }
  });

  it("the python forwarder (for pip) gives the same way out: the registry, and 403 for anything else", async () => {
    const planned = installPlan({ manager: "pip", argv: ["pip", "install", "flake8==7.0.0"] });
    if (!planned.ok) throw new Error(planned.problem);
    const script = [
      "import json, urllib.request",
      "out = {}",
      "for name, url in (('registry', 'https://registry.npmjs.org/is-number'), ('other', 'https://example.com/')):",
      "    try:",
      "        with urllib.request.urlopen(url, timeout=10) as response: out[name] = response.status",
      "    except Exception as err: out[name] = str(getattr(err, 'reason', err))",
      "print(json.dumps(out))",
    ].join("\n");
    const worktree = await reachableTempDir("install-python-probe");
    try {
      const result = await engine.run({
        argv: [...planned.plan.argv.slice(0, 4), "python3", "-c", script],
        image: REVIEW_OPERATOR.images.python ?? "",
        worktree,
        cwd: ".",
        env: planned.plan.env,
        limits: TEST_LIMITS,
        labels: { jobId: `install-probe-${SUFFIX}`, helper: "install-probe-python" },
        mounts: [{ source: proxy.dir, target: REGISTRY_MOUNT, writable: false }],
      });
      expect(result.exitCode, result.stderr.toString()).toBe(0);
      expect(JSON.parse(result.stdout.toString())).toEqual({ registry: 200, other: "Tunnel connection failed: 403 Forbidden" });
    } finally {
      await rm(worktree, { recursive: true, force: true });
    }
  });

  it("a failed install caches nothing and the helper does not run", async () => {
    const name = `broken-${SUFFIX}`;
    const broken = createReviewRepo(join(root, "broken"), {
      helpers: [usesDep(name, ["npm", "install", `reviewbot-no-such-package-${SUFFIX}@1.0.0`])],
      fork: (tree) => {
        tree.write("src/new.js", "module.exports = 2;\n");
      },
    });
    const before = await readdir(deps.root);
    const since = Math.floor(Date.now() / 1000) - 1;
    const report = await review(operatorWith("registry"), broken);
    const failed = helper(report, name);
    expect(failed).toMatchObject({ outcome: "failed", install: { status: "failed" }, findings: [] });
    expect(failed.problems.join("\n")).toMatch(/install hook failed: exited 1/);
    expect(await containerEvents(docker, LABELS.helper, name, since)).toEqual([]);
    expect(await readdir(deps.root)).toEqual(before);
  });

  it("with installHooks off, the hook is not run and the helper runs without it", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const report = await review(operatorWith("off"));
    const used = helper(report, USES_DEP);
    expect(used).toMatchObject({ outcome: "failed", install: { status: "not-run" } });
    expect(used.problems).toContain("install hook not run: install hooks are disabled by the operator (installHooks: off)");
    expect(used.stderr).toMatch(/Cannot find module 'is-number'/);
    expect(await containerEvents(docker, LABELS.helper, `${USES_DEP}.install`, since)).toEqual([]);
  });

  it("a worker without the registry proxy fails closed", async () => {
    const report = await review(operatorWith("registry"), upstream, false);
    expect(helper(report, USES_DEP)).toMatchObject({ outcome: "failed", install: { status: "not-run" } });
    expect(helper(report, USES_DEP).problems).toContain("install hook not run: this worker has no registry proxy for install hooks");
  });
});

describe("install hooks under bubblewrap", () => {
  it("are refused with a clear problem, never run with network", async () => {
    const bwrapKind = REVIEW_ENGINES.find((kind) => kind.name === "bwrap");
    if (bwrapKind === undefined) throw new Error("no bwrap engine kind");
    const root = await reachableTempDir("install-bwrap");
    const opened = await bwrapKind.open([REVIEW_OPERATOR.images.node ?? ""]);
    try {
      const cache = await openCache(join(root, "cache"));
      const name = `bwrap-dep-${SUFFIX}`;
      const repo = createReviewRepo(join(root, "repo"), {
        helpers: [helperEntry(name, ["node", "-e", "require('is-number')"], { image: "node", install: INSTALL })],
        fork: (tree) => {
          tree.write("src/new.js", "module.exports = 3;\n");
        },
      });
      const operator = parseOperatorPolicy({ ...REVIEW_OPERATOR, installHooks: "registry" });
      const request = { ...forkRequest(repo, { label: `install-bwrap-${SUFFIX}` }), filterMode: "nofilter" as const };
      const report = await reviewPullRequest(request, { cache, engine: opened.engine, operator, logger: silentLogger(), secrets: [] });
      const refused = helper(report, name);
      expect(refused).toMatchObject({ engine: "bwrap", install: { status: "not-run" } });
      expect(refused.problems).toContain(
        "install hook not run: install hooks need the container engine, run by a root worker or on a rootful daemon, so that each install's writable mount is a uid's of its own (this worker runs bwrap)",
      );
      await mkdir(join(root, "x"), { recursive: true });
      // Even asked directly, the engine refuses mounts rather than run without them.
      await expect(
        opened.engine.run({
          argv: ["true"],
          image: REVIEW_OPERATOR.images.node ?? "",
          worktree: join(root, "x"),
          cwd: ".",
          env: {},
          limits: TEST_LIMITS,
          labels: { jobId: "x", helper: "x" },
          mounts: [{ source: root, target: DEPS_MOUNT, writable: true }],
        }),
      ).rejects.toMatchObject({ code: "POLICY_DENIED" });
    } finally {
      await opened.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 180_000);
});
