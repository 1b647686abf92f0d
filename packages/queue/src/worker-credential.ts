import { createHash, randomBytes } from "node:crypto";

/**
 * A worker's credential, `<name>.<secret>`: the name says which worker (for the api's log and its
 * registry), the secret proves it. The api keeps only `sha256(secret)` per name
 * (REVIEWBOT_WORKERS_FILE), so revoking one worker is deleting its line.
 */
export const WORKER_CREDENTIAL = /^([a-z0-9][a-z0-9-]{0,62})\.([A-Za-z0-9_-]{32,256})$/;

export interface WorkerCredential {
  readonly name: string;
  readonly secret: string;
}

/** The parts of a credential, or null when it is not `<name>.<secret>`. */
export function parseWorkerCredential(credential: string): WorkerCredential | null {
  const match = WORKER_CREDENTIAL.exec(credential);
  return match === null ? null : { name: match[1] ?? "", secret: match[2] ?? "" };
}

/** A fresh credential for worker `name` (256 random bits). */
export function newWorkerCredential(name: string): string {
  return `${name}.${randomBytes(32).toString("base64url")}`;
}

/** The hash the api's registry keeps of a secret. */
export function secretHash(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}

/** The registry line of a credential: `<name> <sha256-hex>`. */
export function registryLine(credential: WorkerCredential): string {
  return `${credential.name} ${secretHash(credential.secret).toString("hex")}`;
}
