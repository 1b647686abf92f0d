import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

// The parts of V8's `.cpuprofile` (node --cpu-prof) that self time needs.
const CallFrame = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() });
type CallFrame = z.infer<typeof CallFrame>;
const CpuProfile = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame: CallFrame, children: z.array(z.number()).optional() })),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

/** One function's time in a profile, and its share of the time the process was not idle. */
export interface ProfileEntry {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/**
 * How a sample is charged: `self` to the function running; `own` to the nearest of our functions
 * (apps/, packages/) on its stack, so a library's or a system call's time lands on the step of ours
 * that caused it (time after an `await` inside a library has none: `(no frame of ours)`).
 */
export type Attribution = "self" | "own";

const OURS = /\/(apps|packages)\/[^/]+\/dist\//;

/**
 * The `top` functions over every `.cpuprofile` in `dir`, idle time left out, named
 * `function file:line` (the file relative to node_modules or the repository when it can be). The
 * profiler samples wall time: a system call's share includes the waits inside it.
 */
export async function topProfileEntries(dir: string, top: number, attribution: Attribution): Promise<ProfileEntry[]> {
  const byName = new Map<string, number>();
  let total = 0;
  for (const file of (await readdir(dir)).filter((name) => name.endsWith(".cpuprofile"))) {
    const profile = CpuProfile.parse(JSON.parse(await readFile(join(dir, file), "utf8")));
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id] as const)));
    profile.samples.forEach((id, index) => {
      if (frames.get(id)?.functionName === "(idle)") return;
      const micros = profile.timeDeltas[index] ?? 0;
      const name = attribution === "self" ? nameOf(frames.get(id)) : ownFrame(id, frames, parents);
      byName.set(name, (byName.get(name) ?? 0) + micros);
      total += micros;
    });
  }
  return [...byName]
    .sort(([, a], [, b]) => b - a)
    .slice(0, top)
    .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / Math.max(1, total) }));
}

function ownFrame(id: number, frames: ReadonlyMap<number, CallFrame>, parents: ReadonlyMap<number, number>): string {
  for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) {
    const frame = frames.get(node);
    if (frame !== undefined && OURS.test(frame.url) && !frame.url.includes("/node_modules/")) return nameOf(frame);
  }
  return "(no frame of ours)";
}

function nameOf(frame: CallFrame | undefined): string {
  if (frame === undefined) return "?";
  const file = frame.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/((apps|packages)\/)/, "$1");
  return `${frame.functionName === "" ? "(anonymous)" : frame.functionName} ${file === "" ? "" : `${file}:${String(frame.lineNumber + 1)}`}`.trim();
}
