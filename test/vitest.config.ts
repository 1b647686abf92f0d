import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { integrationGroups, type TestGroup } from "./support/test-groups.js";

// Integration suites drive real git, processes and sandboxes: generous timeouts. REVIEWBOT_TEST_GROUP
// picks one group (support/test-groups.ts): the engine files run one at a time, the others two at a
// time; without it, every file runs, one at a time.
const group = testGroup(process.env.REVIEWBOT_TEST_GROUP);
const files = group === undefined ? undefined : integrationGroups(fileURLToPath(new URL(".", import.meta.url)))[group];

function testGroup(value: string | undefined): TestGroup | undefined {
  if (value === undefined || value === "engines" || value === "shared") return value;
  throw new Error(`REVIEWBOT_TEST_GROUP: must be engines or shared, not ${value}`);
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    ...(files === undefined ? {} : { include: files }),
    fileParallelism: group === "shared",
    maxWorkers: group === "shared" ? 2 : 1,
  },
});
