import { z } from "zod";

/** pino's levels, as `REVIEWBOT_LOG_LEVEL` takes them. */
export const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
export type LogLevel = z.infer<typeof LogLevel>;
