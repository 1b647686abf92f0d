import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ISOLATION_ENGINES } from "../support/attack-engines.js";
import { expectFacts, useAttackSuite, useEngine } from "../support/attack-suite.js";
import { startConnectionRecorder, type ConnectionRecorder } from "../support/connection-recorder.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";

// Every case proves from inside that no packet can leave before it tries anything: only `lo`, and
// no route at all (so 169.254.169.254 and every other non-loopback address are unreachable). The
// suite never sends a packet to a non-loopback address, from inside or from the host.
const NO_NETWORK = [
  "ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ',')",
  "routes=$(tail -n +2 /proc/net/route | wc -l)",
  "routes6=$(grep -vc ' lo$' /proc/net/ipv6_route)",
  'echo "ifaces=$ifaces"; echo "routes=$routes"; echo "routes6=$routes6"',
  'if [ "$ifaces" != "lo," ] || [ "$routes" != 0 ] || [ "$routes6" != 0 ]; then echo "LIMIT MISSING: network" >&2; exit 99; fi',
].join("\n");

// bash's /dev/tcp: the base image has no other client.
const TCP_CONNECT = [
  'for port in $(echo "$REVIEWBOT_PORTS" | tr , " "); do',
  // The error names why: a bash without /dev/tcp support would say "No such file or directory".
  '  if err=$( (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>&1 ); then echo "tcp$port=connected"; else echo "tcp$port=${err##*: }"; fi',
  "done",
].join("\n");

// A hostile client of the worker's queue: writes a key if it ever reaches the host's Redis.
const REDIS_WRITE = [
  'if exec 3<>"/dev/tcp/127.0.0.1/$REVIEWBOT_REDIS_PORT"; then',
  "  printf 'SET reviewbot-pwned yes\\r\\n' >&3; read -r reply <&3; echo \"redis=${reply%$'\\r'}\"",
  "else echo redis=unreachable; fi",
].join("\n");

const ATTACKS = {
  "no-network": NO_NETWORK,
  tcp: `${NO_NETWORK}\nexec bash attacks/tcp-connect.bash`,
  redis: `${NO_NETWORK}\nexec bash attacks/redis-write.bash`,
  dns: [NO_NETWORK, "if getent hosts example.com; then echo dns=resolved; else echo dns=failed; fi"].join("\n"),
};

const suite = useAttackSuite({
  attacks: ATTACKS,
  editFork: (tree) => {
    tree.write("attacks/tcp-connect.bash", `${TCP_CONNECT}\n`);
    tree.write("attacks/redis-write.bash", `${REDIS_WRITE}\n`);
  },
});
let recorder: ConnectionRecorder;
let redis: LocalRedis;

beforeAll(async () => {
  recorder = await startConnectionRecorder();
  redis = await startLocalRedis();
});
afterAll(async () => {
  await recorder.close();
  await redis.stop();
});

describe("negative control: the host's own loopback", () => {
  it("the fork's connect script reaches the listener when run on the host", async () => {
    const before = recorder.connections.length;
    const { stdout } = await promisify(execFile)("bash", [`${suite.repo.checkout.dir}/attacks/tcp-connect.bash`], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", REVIEWBOT_PORTS: String(recorder.port) },
    });
    expect(stdout).toBe(`tcp${recorder.port}=connected\n`);
    await expect.poll(() => recorder.connections.length).toBe(before + 1);
  });

  it("the fork's Redis script writes to the host's Redis when run on the host", async () => {
    const { stdout } = await promisify(execFile)("bash", [`${suite.repo.checkout.dir}/attacks/redis-write.bash`], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", REVIEWBOT_REDIS_PORT: String(redis.port) },
    });
    expect(stdout).toBe("redis=+OK\n");
    expect(await redis.command("GET", "reviewbot-pwned")).toBe("yes");
    await redis.command("DEL", "reviewbot-pwned");
  });
});

describe.each(ISOLATION_ENGINES)("network attacks on $name", (underAttack) => {
  const engine = useEngine(underAttack);

  it("has only lo and no route: the metadata address and every non-loopback address are unreachable", async () => {
    const run = await suite.attack(engine.opened, "no-network");
    expectFacts(run, { ifaces: "lo,", routes: "0", routes6: "0" });
    expect(run.exitCode, run.err).toBe(0);
  });

  it("cannot open TCP to a listener on the host's 127.0.0.1", async () => {
    const before = recorder.connections.length;
    const run = await suite.attack(engine.opened, "tcp", { env: { REVIEWBOT_PORTS: String(recorder.port) } });
    expectFacts(run, { ifaces: "lo," });
    expect(run.facts.get(`tcp${recorder.port}`), run.err).toMatch(/^(Connection refused|Network is unreachable)$/);
    expect(recorder.connections.length).toBe(before);
  });

  it("cannot reach the host's Redis on 127.0.0.1", async () => {
    const run = await suite.attack(engine.opened, "redis", { env: { REVIEWBOT_REDIS_PORT: String(redis.port) } });
    expectFacts(run, { ifaces: "lo,", redis: "unreachable" });
    expect(run.err).toMatch(/Connection refused|Network is unreachable/);
    expect(await redis.command("EXISTS", "reviewbot-pwned")).toBe("0");
  });

  it("cannot resolve names", async () => {
    const run = await suite.attack(engine.opened, "dns");
    expectFacts(run, { ifaces: "lo,", routes: "0", dns: "failed" });
  });
});
