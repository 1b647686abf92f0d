import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runCli } from "./cli-runner.js";

const run = promisify(execFile);
const INFRA = fileURLToPath(new URL("../../infra/", import.meta.url));
/** The uid:gid the images run as (infra/containers): it must read the secrets. */
const APP_UID = 10001;

/** A `REVIEWBOT_DEPLOY_DIR` made the way docs/deployment.md ("Single host with Compose") says. */
export interface ComposeDeployment {
  readonly dir: string;
  readonly webhookSecret: string;
  /** The password of Redis's `default` user (the operator's), for inspecting the queues. */
  readonly redisAdminPassword: string;
  /** Writes `<dir>/<app>.env`: infra/compose/<app>.env.example with `settings` set. */
  writeEnv(app: "api" | "worker", settings: Readonly<Record<string, string>>): Promise<void>;
}

/** The worker's own secrets: readable by the uid it runs as (REVIEWBOT_WORKER_USER). */
const WORKER_SECRETS = new Set(["worker-credential", "redis-worker-password"]);

/**
 * The secrets (`github-app.pem`, webhook secret, dashboard password, a worker credential from
 * `reviewbot worker-credential` with its hash in `workers`, one Redis password per role and the ACL
 * file infra/redis/render-acl.sh renders from them), mode 0400, owned by the images' uid (the
 * worker's two by `workerUid`, default the same), and both env files copied from the committed
 * examples.
 */
export async function writeComposeDeployment(dir: string, privateKeyPem: string, workerUid = APP_UID): Promise<ComposeDeployment> {
  const secrets = join(dir, "secrets");
  await mkdir(secrets, { recursive: true, mode: 0o700 });
  const secret = async (name: string, value: string): Promise<void> => writeFile(join(secrets, name), value, { mode: 0o600 });
  const webhookSecret = randomBytes(20).toString("hex");
  await secret("github-app.pem", privateKeyPem);
  await secret("webhook-secret", webhookSecret);
  await secret("dashboard-password", randomBytes(12).toString("hex"));
  const credential = await runCli(["worker-credential", "compose-worker", "--registry", join(secrets, "workers")], {});
  if (credential.status !== 0) throw new Error(`reviewbot worker-credential failed: ${credential.stderr}`);
  await secret("worker-credential", credential.stdout);
  const passwords: Record<string, string> = {};
  for (const role of ["api", "worker", "admin"]) {
    passwords[role] = randomBytes(32).toString("hex");
    await secret(`redis-${role}-password`, `${passwords[role]}\n`);
  }
  const acl = await run(
    join(INFRA, "redis", "render-acl.sh"),
    ["api", "worker", "admin"].map((role) => join(secrets, `redis-${role}-password`)),
  );
  await secret("redis-users.acl", acl.stdout);
  for (const name of await readdir(secrets)) {
    const owner = WORKER_SECRETS.has(name) ? workerUid : APP_UID;
    await chown(join(secrets, name), owner, owner);
    await chmod(join(secrets, name), 0o400);
  }
  const writeEnv = async (app: "api" | "worker", settings: Readonly<Record<string, string>>): Promise<void> => {
    const example = await readFile(join(INFRA, "compose", `${app}.env.example`), "utf8");
    await writeFile(join(dir, `${app}.env`), withSettings(example, settings), { mode: 0o644 });
  };
  await writeEnv("api", {});
  await writeEnv("worker", {});
  return { dir, webhookSecret, redisAdminPassword: passwords.admin ?? "", writeEnv };
}

/** An env file with each of `settings` in place of its line (uncommented), or appended. */
function withSettings(text: string, settings: Readonly<Record<string, string>>): string {
  const pending = new Map(Object.entries(settings));
  const lines = text.split("\n").map((line) => {
    const name = /^#?\s*([A-Z0-9_]+)=/.exec(line)?.[1];
    const value = name === undefined ? undefined : pending.get(name);
    if (name === undefined || value === undefined) return line;
    pending.delete(name);
    return `${name}=${value}`;
  });
  return `${[...lines, ...[...pending].map(([name, value]) => `${name}=${value}`)].join("\n").trimEnd()}\n`;
}
