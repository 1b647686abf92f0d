import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { RedisTarget } from "@reviewbot/queue/redis-target";

/** What `command` gets as `target`'s user, through the apps' own connection code: `ok: <reply>`, or the error's message. */
export async function redisAnswer(target: RedisTarget, command: readonly string[]): Promise<string> {
  const connection = createRedisConnection(target, { name: "probe", blocking: false });
  connection.on("error", () => undefined);
  try {
    const [name = "", ...args] = command;
    return await connection.call(name, ...args).then(
      (reply) => `ok: ${String(reply)}`,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  } finally {
    connection.disconnect();
  }
}
