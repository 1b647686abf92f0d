import { timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { parseWorkerCredential, secretHash } from "@reviewbot/queue/worker-credential";

/** A line of the registry file: `<name> <sha256 of the secret, hex>`. */
const LINE = /^([a-z0-9][a-z0-9-]{0,62})\s+([0-9a-f]{64})$/;
const RECHECK_MS = 1000;

/**
 * The workers the api accepts, one credential each (docs/architecture.md, layer 4: workers are
 * untrusted clients of the api): a file of `<name> <sha256-hex>` lines (REVIEWBOT_WORKERS_FILE),
 * holding hashes only. The file is looked at again at most once a second and re-read when it
 * changed, so deleting a worker's line revokes that worker at once, without restarting the api or
 * the other workers. A file that no longer reads or parses revokes everyone until it is fixed (fail
 * closed), and says why in the log.
 */
export class WorkerRegistry {
  readonly #path: string;
  readonly #logger: Logger;
  #workers = new Map<string, Buffer>();
  #stamp = "";
  #checkedAt = 0;

  /** @throws AppError `CONFIG_INVALID` when the file cannot be read or a line is malformed. */
  constructor(path: string, logger: Logger) {
    this.#path = path;
    this.#logger = logger;
    this.#workers = this.#load();
  }

  /** The worker a presented credential belongs to, or null. Constant time in the secret. */
  authenticate(credential: string | undefined): string | null {
    this.#refresh();
    const parsed = parseWorkerCredential(credential ?? "");
    if (parsed === null) return null;
    const expected = this.#workers.get(parsed.name);
    return expected !== undefined && timingSafeEqual(secretHash(parsed.secret), expected) ? parsed.name : null;
  }

  get size(): number {
    this.#refresh();
    return this.#workers.size;
  }

  #refresh(): void {
    const now = Date.now();
    if (now - this.#checkedAt < RECHECK_MS) return;
    this.#checkedAt = now;
    let stamp: string;
    try {
      stamp = fileStamp(this.#path);
    } catch (err) {
      if (this.#workers.size > 0) this.#logger.error({ err, file: this.#path }, "worker registry unreadable: every worker refused");
      this.#workers = new Map();
      this.#stamp = "";
      return;
    }
    if (stamp === this.#stamp) return;
    try {
      this.#workers = this.#load();
      this.#logger.info({ workers: [...this.#workers.keys()] }, "worker registry loaded");
    } catch (err) {
      this.#logger.error({ err, file: this.#path }, "worker registry invalid: every worker refused");
      this.#workers = new Map();
      this.#stamp = stamp;
    }
  }

  #load(): Map<string, Buffer> {
    let text: string;
    try {
      this.#stamp = fileStamp(this.#path);
      text = readFileSync(this.#path, "utf8");
    } catch (err) {
      throw new AppError("CONFIG_INVALID", `REVIEWBOT_WORKERS_FILE: cannot read ${this.#path}`, { cause: err });
    }
    return parseRegistry(text);
  }
}

/**
 * Parses a registry: blank lines and `#` comments skipped, every other line `<name> <sha256-hex>`,
 * each name once.
 */
export function parseRegistry(text: string): Map<string, Buffer> {
  const workers = new Map<string, Buffer>();
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (match === null) throw new AppError("CONFIG_INVALID", `REVIEWBOT_WORKERS_FILE line ${index + 1}: expected "<name> <sha256 hex of the secret>"`);
    const [, name = "", hash = ""] = match;
    if (workers.has(name)) throw new AppError("CONFIG_INVALID", `REVIEWBOT_WORKERS_FILE line ${index + 1}: worker ${name} is listed twice`);
    workers.set(name, Buffer.from(hash, "hex"));
  }
  return workers;
}

function fileStamp(path: string): string {
  const stat = statSync(path);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
