import { seededRandom } from "@reviewbot/core/testing/growth-ratio";
import type { PatchedFile } from "@reviewbot/review/ai/plan/plan-chunks";

const CODE = [
  "  const value = input.map((item) => item.id);",
  "  if (value === undefined) return null;",
  "  return await fetchThing(value, { retries: 3 });",
  "}",
  "",
  "export function helper(a: number, b: number): number {",
];

/** One hunk of `lines` changed lines (about a third removed) in three lines of context. */
function hunk(start: number, lines: number, random: () => number): string {
  const body: string[] = [];
  let removed = 0;
  for (let i = 0; i < lines; i += 1) {
    const marker = random() < 0.33 ? "-" : "+";
    if (marker === "-") removed += 1;
    body.push(`${marker}${CODE[Math.floor(random() * CODE.length)] ?? ""}`);
  }
  const context = [` ${CODE[0] ?? ""}`, ` ${CODE[1] ?? ""}`, ` ${CODE[2] ?? ""}`];
  return `@@ -${start},${removed + 3} +${start},${lines - removed + 3} @@ export function f${start}() {\n${[...context, ...body].join("\n")}\n`;
}

/**
 * `count` changed files as `readPrPatches` gives them, of the sizes a large PR has: most change
 * a few lines in one to four hunks, one in ten a few hundred lines, one in a hundred is a
 * lockfile of thousands of lines (skipped), and one in two hundred is binary (skipped).
 */
export function syntheticPatches(count: number, seed = 14): PatchedFile[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index): PatchedFile => {
    const dir = `packages/p${String(index % 37)}/src`;
    if (index % 200 === 199) {
      const path = `${dir}/logo${String(index)}.png`;
      return { path, binary: true, patch: `diff --git a/${path} b/${path}\nBinary files differ\n` };
    }
    const lockfile = index % 100 === 42;
    const path = lockfile ? `packages/lock${String(index)}/package-lock.json` : `${dir}/module-${String(index)}.ts`;
    const large = index % 10 === 3;
    const hunks = lockfile ? 1 : 1 + Math.floor(random() * 4);
    const lines = (): number => (lockfile ? 3000 : large ? 150 + Math.floor(random() * 300) : 2 + Math.floor(random() * 25));
    let patch = `diff --git a/${path} b/${path}\nindex 1234567..89abcde 100644\n--- a/${path}\n+++ b/${path}\n`;
    for (let h = 0, start = 1 + Math.floor(random() * 50); h < hunks; h += 1, start += 80 + Math.floor(random() * 200)) patch += hunk(start, lines(), random);
    return { path, binary: false, patch };
  });
}
