import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A full collection before each timing, so that the garbage one run leaves is not charged to
// the next (without it a 4× run measured 7× by the collections of earlier runs' garbage).
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** The CPU time one run at N must reach before N is taken: shorter runs are mostly noise. */
const MIN_RUN_MS = 20;

/**
 * For the test suites and benchmarks (never used at run time): how much longer `run` takes on an
 * input 4× as large. Linear work gives about 4, quadratic 16. N starts at `size` and doubles (up
 * to `maxGrowth` times, 64 by default) until one run takes {@link MIN_RUN_MS} of CPU; after a warm-up, each size is timed
 * `repetitions` times, interleaved, and the fastest of each is compared: on a shared machine
 * noise only ever adds time, so the minimum is the figure least disturbed by it (the medians of
 * the first version measured 7× for linear code while other packages' tests ran beside it); a
 * round above 4.5 is measured again (up to five rounds, and beyond the fifth while
 * {@link EXTRA_ROUNDS_MS} from the first has not passed) and the lowest round kept.
 * CPU time of this process, never wall time, and a ratio, never an absolute time.
 */
export function growthRatio<T>(
  run: (input: T) => unknown,
  make: (size: number) => T,
  size: number,
  options: { repetitions?: number; maxGrowth?: number } = {},
): number {
  const { repetitions = 7, maxGrowth = 64 } = options;
  let n = size;
  let small = make(n);
  run(small);
  while (n < maxGrowth * size && cpuMs(run, small) < MIN_RUN_MS) {
    n *= 2;
    small = make(n);
    run(small);
  }
  const large = make(4 * n);
  // Warm-up until the JIT has settled: its compiler threads' time counts as this process's.
  for (let warmUp = 0; warmUp < 3; warmUp += 1) {
    run(small);
    run(large);
  }
  // Rounds until one settles, the lowest kept: a round that other processes slowed (turbo runs
  // every package's tests at once on two cores: 6.2 measured for linear code) is measured again,
  // while quadratic work stays near 16 in every round. Up to five rounds whatever the time; more
  // only while the extra budget lasts, because a slowdown can outlast five (CI once measured 7.3 in all five).
  const extraUntil = performance.now() + EXTRA_ROUNDS_MS;
  let ratio = Number.POSITIVE_INFINITY;
  for (let round = 0; ratio > SETTLED_RATIO && (round < 5 || performance.now() < extraUntil); round += 1) {
    ratio = Math.min(ratio, fastestRatio(run, small, large, repetitions));
  }
  return ratio;
}

/** A ratio this low needs no second round: clearly linear. */
const SETTLED_RATIO = 4.5;

/** How long, from the first round, rounds beyond the fifth may still start (wall time). */
const EXTRA_ROUNDS_MS = 15_000;

function fastestRatio<T>(run: (input: T) => unknown, small: T, large: T, repetitions: number): number {
  let fastest = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
  for (let repetition = 0; repetition < repetitions; repetition += 1) {
    fastest = { small: Math.min(fastest.small, cpuMs(run, small)), large: Math.min(fastest.large, cpuMs(run, large)) };
  }
  return fastest.large / Math.max(fastest.small, 0.01);
}

/** How many bytes of heap `run`'s result holds on to, measured between full collections. */
export function retainedBytes(run: () => unknown): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const kept = run();
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  // Read after the measurement, so that the result is still alive when it is taken.
  return kept === undefined ? 0 : after - before;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same inputs. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cpuMs<T>(run: (input: T) => unknown, input: T): number {
  collectGarbage();
  const start = process.cpuUsage();
  run(input);
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
