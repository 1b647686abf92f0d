/** Ceilings on what a checkout may materialise: a "git bomb" must not fill the disk or hang a worker. */
export interface CheckoutLimits {
  readonly maxFiles: number;
  readonly maxTotalBytes: number;
  readonly maxPathDepth: number;
  readonly maxPathBytes: number;
}

/** The defaults of `REVIEWBOT_MAX_FILES`, `_TOTAL_BYTES`, `_PATH_DEPTH` and `_PATH_BYTES` (packages/runtime). */
export const DEFAULT_CHECKOUT_LIMITS: CheckoutLimits = Object.freeze({
  maxFiles: 100_000,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxPathDepth: 64,
  maxPathBytes: 4096,
});
