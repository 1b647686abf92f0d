import { defineConfig } from "vitest/config";

// Integration suites drive real git, processes and (later) sandboxes: generous timeouts, and
// files run one at a time so that timing-sensitive cases do not compete for the two cores.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
