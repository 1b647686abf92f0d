import type Dockerode from "dockerode";

/**
 * The engine's event log (create, start, …) since `since` (epoch seconds) for containers whose
 * `label` (one of the sandbox's LABELS) equals `value`: proof of what did, or did not, start.
 */
export async function containerEvents(docker: Dockerode, label: string, value: string, since: number): Promise<string[]> {
  const until = Math.ceil(Date.now() / 1000) + 1;
  const stream = await docker.getEvents({ since, until, filters: { label: [`${label}=${value}`] } });
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { Action: string }).Action);
}
