import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helperEntry } from "../support/review-repos.js";
import { filesContaining } from "../support/secret-search.js";
import { FLEET_ENGINES } from "./fleet-engine.js";
import { SECRET, startFleet, WORKER_CREDENTIALS, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { waitForCompletedCheckRun } from "./check-runs.js";

const REPOSITORY = "octo/hygiene";
const REPOSITORY_ID = 9601;

// A hostile helper: everything it can see of its environment and the likely token places,
// printed as findings on an added line, so the publisher sends all of it to "GitHub".
const SNOOP = [
  "echo marker-env-dump-begins",
  "env",
  "tr '\\000' '\\n' < /proc/1/environ",
  "for f in /proc/[0-9]*/environ; do tr '\\000' '\\n' < \"$f\"; done",
  "ls -la /work",
  "cat /work/.git/config",
  "cat /work/.git",
  "ls -la /work/.git",
  'cat "$HOME/.git-credentials" "$HOME/.gitconfig"',
  "ls -la /tmp",
].join("; ");
const SCRIPT = `{ ${SNOOP}; } 2>&1 | while IFS= read -r line; do printf 'src/t.ts:1: %s\\n' "$line"; done`;

let fleet: Fleet;
let pull: HostedPull;

/** Every key of the fleet's Redis with its value(s), as raw bytes, read by type. */
async function redisContents(): Promise<{ key: string; bytes: Buffer }[]> {
  const redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: 1 });
  try {
    const out: { key: string; bytes: Buffer }[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await redis.scanBuffer(cursor, "COUNT", 500);
      cursor = next.toString();
      for (const keyBytes of keys) {
        const key = keyBytes.toString("latin1");
        const type = await redis.type(keyBytes);
        let parts: Buffer[];
        if (type === "string") parts = [(await redis.getBuffer(keyBytes)) ?? Buffer.alloc(0)];
        else if (type === "hash") parts = (await redis.callBuffer("HGETALL", keyBytes)) as Buffer[];
        else if (type === "list") parts = await redis.lrangeBuffer(keyBytes, 0, -1);
        else if (type === "set") parts = await redis.smembersBuffer(keyBytes);
        else if (type === "zset") parts = (await redis.callBuffer("ZRANGE", keyBytes, "0", "-1", "WITHSCORES")) as Buffer[];
        else if (type === "stream") parts = [Buffer.from(JSON.stringify(await redis.xrange(keyBytes, "-", "+")))];
        else parts = [Buffer.from(`unread type ${type}`)];
        out.push({ key, bytes: Buffer.concat([keyBytes, ...parts]) });
      }
    } while (cursor !== "0");
    return out;
  } finally {
    redis.disconnect();
  }
}

describe.each(FLEET_ENGINES)("the installation token a worker uses never leaves the places it must be (helpers on %s)", (engine) => {
  beforeAll(async () => {
    fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID }, engine });
    pull = hostPull(fleet, {
      repository: REPOSITORY,
      repositoryId: REPOSITORY_ID,
      number: 13,
      helpers: [helperEntry("snoop", ["sh", "-c", SCRIPT], { format: "errorformat" })],
      fork: (tree) => {
        tree.write("src/t.ts", "export const t = 1;\n");
      },
    });
    const response = await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"));
    expect(response.status).toBe(202);
    await waitForCompletedCheckRun(fleet, pull.headSha, 90_000);
    // Let the review comments and the last publisher writes land.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }, 240_000);

  afterAll(async () => {
    await (fleet as Fleet | undefined)?.stop();
  });

  it("was minted, scoped, and really used to clone (the negative control)", () => {
    const tokens = fleet.github.minted.filter((token) => token.repositoryIds !== undefined);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(token.repositoryIds).toEqual([REPOSITORY_ID]);
    const authorised = fleet.git.requests.filter((request) => request.authorized && request.status === 200);
    expect(authorised.length).toBeGreaterThan(0);
    expect(authorised.some((request) => request.path.includes(`/${REPOSITORY}.git/`))).toBe(true);
    // The searches below can find a token: the stand-in saw it where it belongs, in Authorization.
    const all = fleet.github.minted.map((token) => token.token);
    expect(fleet.github.requests.some((request) => all.some((token) => request.authorization?.includes(token) === true))).toBe(true);
  });

  it("published what the hostile helper printed (so the searches below look at its output)", async () => {
    const run = await waitForCompletedCheckRun(fleet, pull.headSha);
    const messages = run.annotations.map((a) => a.message).join("\n");
    expect(messages).toContain("marker-env-dump-begins");
    expect(messages).toMatch(/PATH=/);
    expect(run.output.summary).toContain(`**Sandbox:** engine \`${engine}\`, sandboxed.`);
  });

  const needles = (): { name: string; value: string }[] => [
    ...fleet.github.minted.map((token, i) => ({ name: `minted token #${i}`, value: token.token })),
    ...WORKER_CREDENTIALS.map((credential, i) => ({ name: `worker credential #${i}`, value: credential })),
    { name: "api's Redis password", value: fleet.redis.roles?.api.password ?? "missing" },
    { name: "worker's Redis password", value: fleet.redis.roles?.worker.password ?? "missing" },
    { name: "webhook secret", value: SECRET },
  ];

  it("appears in no request body the stand-in received (annotations, summaries, reviews)", () => {
    const bodies = fleet.github.requests.map((request) => `${request.method} ${request.path} ${JSON.stringify(request.body ?? null)}`);
    for (const { name, value } of needles())
      expect(
        bodies.filter((body) => body.includes(value)),
        name,
      ).toEqual([]);
  });

  it("appears in no log line of the api or any worker", () => {
    const lines = fleet.allLogs().split("\n");
    for (const { name, value } of needles())
      expect(
        lines.filter((line) => line.includes(value)),
        name,
      ).toEqual([]);
  });

  it("appears in no Redis key or value", async () => {
    const contents = await redisContents();
    expect(contents.length).toBeGreaterThan(5);
    for (const { name, value } of needles()) {
      expect(
        contents.filter((entry) => entry.bytes.includes(Buffer.from(value))).map((entry) => entry.key),
        name,
      ).toEqual([]);
    }
  });

  it("appears in no file of the fleet's directories (worker caches, clones, Redis's AOF, the Docker daemon's)", () => {
    for (const dir of [fleet.root, ...fleet.engineDirs]) {
      for (const { name, value } of needles()) expect(filesContaining(dir, value), `${name} in ${dir}`).toEqual([]);
    }
  });

  it("appears in no URL the git server was asked for", () => {
    const urls = fleet.git.requests.map((request) => `${request.path}${request.query}`);
    for (const { name, value } of needles())
      expect(
        urls.filter((url) => url.includes(value)),
        name,
      ).toEqual([]);
  });
});
