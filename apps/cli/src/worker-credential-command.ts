import { appendFile, readFile } from "node:fs/promises";
import { AppError } from "@reviewbot/core/errors";
import { newWorkerCredential, parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";

export interface WorkerCredentialArgs {
  readonly worker: string;
  /** The api's REVIEWBOT_WORKERS_FILE: the credential's hash is appended to it. */
  readonly registry: string | undefined;
}

/**
 * `reviewbot worker-credential <name>`: a new credential for one worker, printed for the worker's
 * secret file; its hash goes into the api's registry (the api re-reads it within a second). A name
 * already in the registry is refused: revoke the old line first.
 */
export async function workerCredentialCommand(args: WorkerCredentialArgs): Promise<string> {
  const credential = newWorkerCredential(args.worker);
  const line = registryLine(parseWorkerCredential(credential) ?? { name: args.worker, secret: "" });
  if (args.registry !== undefined) {
    const existing = await readFile(args.registry, "utf8").catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw new AppError("USAGE", `--registry: cannot read ${args.registry ?? ""}`, { cause: err });
    });
    if (existing.split("\n").some((entry) => entry.trim().split(/\s+/, 1)[0] === args.worker)) {
      throw new AppError("USAGE", `worker ${args.worker} is already in ${args.registry}; delete its line to revoke it first`);
    }
    await appendFile(args.registry, `${existing === "" || existing.endsWith("\n") ? "" : "\n"}${line}\n`, { mode: 0o644 });
  }
  return `${credential}\n`;
}
