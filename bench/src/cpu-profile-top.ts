import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

// The parts of V8's `.cpuprofile` (node --cpu-prof) that self time needs.
const CpuProfile = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

/** One function's self time in a profile. */
export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/**
 * The `top` functions by self time over every `.cpuprofile` in `dir`, named `function file:line`
 * (the file relative to node_modules or the repository when it can be).
 */
export async function topSelfTimes(dir: string, top: number): Promise<SelfTime[]> {
  const byName = new Map<string, number>();
  let total = 0;
  for (const file of (await readdir(dir)).filter((name) => name.endsWith(".cpuprofile"))) {
    const profile = CpuProfile.parse(JSON.parse(await readFile(join(dir, file), "utf8")));
    const names = new Map(profile.nodes.map((node) => [node.id, nameOf(node.callFrame)]));
    profile.samples.forEach((id, index) => {
      const micros = profile.timeDeltas[index] ?? 0;
      const name = names.get(id) ?? "?";
      byName.set(name, (byName.get(name) ?? 0) + micros);
      total += micros;
    });
  }
  return [...byName]
    .sort(([, a], [, b]) => b - a)
    .slice(0, top)
    .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / Math.max(1, total) }));
}

function nameOf(frame: { functionName: string; url: string; lineNumber: number }): string {
  const file = frame.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/((apps|packages)\/)/, "$1");
  return `${frame.functionName === "" ? "(anonymous)" : frame.functionName} ${file === "" ? "" : `${file}:${String(frame.lineNumber + 1)}`}`.trim();
}
