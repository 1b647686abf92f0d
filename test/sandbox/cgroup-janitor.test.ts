import { randomUUID } from "node:crypto";
import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CGROUP_LAYOUT } from "@reviewbot/sandbox/cgroup-limits";
import { reapStaleRunCgroups } from "@reviewbot/sandbox/cgroup-v1";

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

describe("run cgroup janitor", () => {
  it("removes run cgroups a crashed worker left behind and spares young ones", async () => {
    const leaked = join(DEFAULT_CGROUP_LAYOUT.root, "pids", DEFAULT_CGROUP_LAYOUT.parent, `leaked-${randomUUID()}`);
    await mkdir(leaked, { recursive: true });
    expect(await reapStaleRunCgroups(DEFAULT_CGROUP_LAYOUT, 60_000)).not.toContain(leaked);
    expect(await exists(leaked)).toBe(true);
    const removed = await reapStaleRunCgroups(DEFAULT_CGROUP_LAYOUT, 60_000, Date.now() + 120_000);
    expect(removed).toContain(leaked);
    expect(await exists(leaked)).toBe(false);
  });
});
