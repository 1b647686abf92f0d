import { GitHubTask } from "@reviewbot/contracts/github-task";
import { parseContract } from "@reviewbot/contracts/parse-contract";
import type { QueueSeal } from "./queue-seal.js";

/**
 * Reads publisher task `taskId` if the api sealed it; a forged or altered task, or a mismatch with
 * the contract, is a final `JOB_INVALID` naming the problem.
 */
export function openGitHubTask(seal: QueueSeal, taskId: string, data: unknown): GitHubTask {
  return parseContract(GitHubTask, "github task", seal.open(taskId, data).data);
}
