import { pino, type DestinationStream, type Logger } from "pino";
import type { SecretScrubber } from "./scrubber.js";

export type { Logger } from "pino";

/** Field paths never written to a log, whatever object they appear in. */
export const REDACTED_PATHS = [
  "token",
  "*.token",
  "password",
  "*.password",
  "secret",
  "*.secret",
  "privateKey",
  "*.privateKey",
  "authorization",
  "*.authorization",
  'headers["authorization"]',
  'headers["x-hub-signature-256"]',
] as const;

export interface LoggerOptions {
  /** The process in every line (`api`, `worker`, `cli`), so that merged logs say whose a line is. */
  readonly name?: string;
  readonly level: string;
  readonly scrubber: SecretScrubber;
  /** Defaults to stderr, so that stdout stays free for command output. */
  readonly destination?: DestinationStream;
}

/**
 * Builds the one root logger of a process. Redaction is configured here once; every line is also
 * passed through the secret scrubber, so a registered token is removed even from free text.
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  const scrubbing: DestinationStream = {
    write(line: string) {
      destination.write(options.scrubber.scrub(line));
    },
  };
  return pino(
    {
      level: options.level,
      ...(options.name === undefined ? {} : { name: options.name }),
      base: { pid: process.pid },
      redact: { paths: [...REDACTED_PATHS], censor: "[REDACTED]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    scrubbing,
  );
}
