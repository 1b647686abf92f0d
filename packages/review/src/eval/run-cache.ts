import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EvalRun } from "./eval-run.js";

/**
 * Scored runs on disk, one file per (configuration hash, case content hash, repetition): a run
 * interrupted and started again reuses every review already scored. An unreadable or invalid entry
 * is treated as missing (the review runs again).
 */
export interface RunCache {
  get(caseHash: string, repetition: number): Promise<EvalRun | undefined>;
  put(caseHash: string, run: EvalRun): Promise<void>;
}

export function openRunCache(dir: string, configHash: string): RunCache {
  const fileOf = (caseHash: string, repetition: number): string => join(dir, configHash, `${caseHash}-${repetition}.json`);
  return {
    async get(caseHash, repetition) {
      const text = await readFile(fileOf(caseHash, repetition), "utf8").catch(() => undefined);
      if (text === undefined) return undefined;
      try {
        const parsed = EvalRun.safeParse(JSON.parse(text));
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
    async put(caseHash, run) {
      await mkdir(join(dir, configHash), { recursive: true });
      const file = fileOf(caseHash, run.repetition);
      // Written whole then renamed: an interrupted write leaves no half entry behind.
      await writeFile(`${file}.tmp`, `${JSON.stringify(run)}\n`);
      await rename(`${file}.tmp`, file);
    },
  };
}
