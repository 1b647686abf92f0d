import type { StandInCheckRun } from "../support/github-stand-in.js";
import type { Fleet } from "./fleet-harness.js";

/** Where check runs are published (the stand-in) and the logs that explain a missing one: a fleet, or a composed stack. */
export type CheckRunHost = Pick<Fleet, "github" | "allLogs">;

/** The stand-in's `reviewbot` check runs for `headSha`. */
export function checkRunsOf(fleet: CheckRunHost, headSha: string): StandInCheckRun[] {
  return [...fleet.github.state.checkRuns.values()].filter((run) => run.head_sha === headSha && run.name === "reviewbot");
}

/** The one `reviewbot` check run for `headSha`, if any (throws when there are two). */
export function checkRunOf(fleet: CheckRunHost, headSha: string): StandInCheckRun | undefined {
  const runs = checkRunsOf(fleet, headSha);
  if (runs.length > 1) throw new Error(`${runs.length} check runs for ${headSha}: published twice`);
  return runs[0];
}

/** Polls the stand-in until the check run for `headSha` is completed. */
export async function waitForCompletedCheckRun(fleet: CheckRunHost, headSha: string, timeoutMs = 120_000): Promise<StandInCheckRun> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = checkRunOf(fleet, headSha);
    if (run?.status === "completed") return run;
    if (Date.now() > deadline) {
      throw new Error(`no completed check run for ${headSha} (now ${JSON.stringify(run)}):\n${fleet.allLogs().slice(-6000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls the stand-in until the one check run for `headSha` satisfies `predicate`. */
export async function waitForCheckRun(
  fleet: CheckRunHost,
  headSha: string,
  predicate: (run: StandInCheckRun) => boolean,
  timeoutMs = 120_000,
): Promise<StandInCheckRun> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = checkRunOf(fleet, headSha);
    if (run !== undefined && predicate(run)) return run;
    if (Date.now() > deadline) {
      throw new Error(`check run for ${headSha} never matched (now ${JSON.stringify(run)}):\n${fleet.allLogs().slice(-6000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
