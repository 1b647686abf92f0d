import { defineConfig } from "vitest/config";

// The parsers' growth tests (4N against N, several CPU timings each) take seconds when turbo runs
// every package's tests at once on two cores: vitest's 5 s default is not their budget.
export default defineConfig({ test: { testTimeout: 60_000 } });
