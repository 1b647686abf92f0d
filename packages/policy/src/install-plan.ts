import type { InstallSpec } from "./install-spec.js";
import { SANDBOX_BASE_ENV } from "./sandbox-env.js";

/** Where an install hook writes (read-write) and where helpers find its result (read-only). */
export const DEPS_MOUNT = "/opt/reviewbot/deps";
/** Where the worker's registry proxy directory (socket, forwarders, CA bundle) is mounted read-only. */
export const REGISTRY_MOUNT = "/run/reviewbot/registry";
/** Names of the files the worker puts in the registry directory. */
export const REGISTRY_FILES = { socket: "proxy.sock", nodeForwarder: "forward.mjs", pythonForwarder: "forward.py", caBundle: "ca.crt" } as const;

// The forwarder inside the install sandbox listens here, on the sandbox's own loopback (the
// sandbox has no other interface), and relays each connection to the proxy's unix socket.
const FORWARD_PORT = "3128";
const PROXY_URL = `http://127.0.0.1:${FORWARD_PORT}`;
const NODE_DEPS = `${DEPS_MOUNT}/node`;
const PYTHON_DEPS = `${DEPS_MOUNT}/python`;
const CA_FILE = `${REGISTRY_MOUNT}/${REGISTRY_FILES.caBundle}`;

/** An install hook as it runs: argv (forwarder first) and the whole environment, both ours. */
export interface InstallPlan {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export type InstallPlanResult = { readonly ok: true; readonly plan: InstallPlan } | { readonly ok: false; readonly problem: string };

// Fixed by us, never by the repository: proxy, CA bundle, and configuration files that cannot
// point the installer anywhere else (no user or global npmrc, no pip.conf; caches in /tmp).
const INSTALL_ENV: Readonly<Record<string, string>> = {
  HTTPS_PROXY: PROXY_URL,
  HTTP_PROXY: PROXY_URL,
  https_proxy: PROXY_URL,
  http_proxy: PROXY_URL,
  NO_PROXY: "",
  no_proxy: "",
  // Outbound HTTPS on our hosts is TLS-intercepted by a proxy the host trusts (docs/architecture.md,
  // 'Host facts': TLS-intercepting proxy).
  NODE_EXTRA_CA_CERTS: CA_FILE,
  SSL_CERT_FILE: CA_FILE,
  PIP_CERT: CA_FILE,
  npm_config_proxy: PROXY_URL,
  npm_config_https_proxy: PROXY_URL,
  // Files that do not exist, on the read-only registry mount: nobody can create them (npm refuses
  // to load /dev/null twice, as user and as global config).
  npm_config_userconfig: `${REGISTRY_MOUNT}/no-user-npmrc`,
  npm_config_globalconfig: `${REGISTRY_MOUNT}/no-global-npmrc`,
  npm_config_cache: "/tmp/npm-cache",
  npm_config_update_notifier: "false",
  npm_config_audit: "false",
  npm_config_fund: "false",
  PIP_CONFIG_FILE: "/dev/null",
  PIP_NO_INPUT: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
  PIP_CACHE_DIR: "/tmp/pip-cache",
};

/**
 * How a checked install hook runs in its sandbox: behind the forwarder (`node` for npm, `python3`
 * for pip, both from the helper's image), with our install target appended (npm `--prefix
 * /opt/reviewbot/deps/node`, pip `--target /opt/reviewbot/deps/python`; `checkInstallSpec` has
 * already refused the repository's own target flags) and an environment of our own.
 *
 * `npm ci` is refused here: it installs the lockfile of the checkout, which comes from the PR and
 * is not part of the cache key, so one PR could decide what every later review of the repository
 * loads.
 */
export function installPlan(spec: InstallSpec): InstallPlanResult {
  const socket = `${REGISTRY_MOUNT}/${REGISTRY_FILES.socket}`;
  if (spec.manager === "npm") {
    if (spec.argv[1] === "ci") {
      return { ok: false, problem: "npm ci installs the checkout's lockfile, which cannot be trusted or cached; name the packages with npm install" };
    }
    const forwarder = ["node", `${REGISTRY_MOUNT}/${REGISTRY_FILES.nodeForwarder}`, socket, FORWARD_PORT];
    return { ok: true, plan: { argv: [...forwarder, ...spec.argv, "--prefix", NODE_DEPS], env: { ...SANDBOX_BASE_ENV, ...INSTALL_ENV } } };
  }
  const forwarder = ["python3", `${REGISTRY_MOUNT}/${REGISTRY_FILES.pythonForwarder}`, socket, FORWARD_PORT];
  return { ok: true, plan: { argv: [...forwarder, ...spec.argv, "--target", PYTHON_DEPS], env: { ...SANDBOX_BASE_ENV, ...INSTALL_ENV } } };
}

/**
 * The environment of a helper whose install hook's result is mounted at {@link DEPS_MOUNT}: the
 * base environment with the deps' executables first on `PATH`, `NODE_PATH` and `PYTHONPATH` into
 * it. Set by us; a repository still cannot set these names (`buildSandboxEnv` refuses them).
 */
export function depsEnv(base: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const path = `${NODE_DEPS}/node_modules/.bin:${PYTHON_DEPS}/bin:${base.PATH ?? SANDBOX_BASE_ENV.PATH ?? ""}`;
  return Object.freeze({ ...base, PATH: path, NODE_PATH: `${NODE_DEPS}/node_modules`, PYTHONPATH: PYTHON_DEPS });
}
