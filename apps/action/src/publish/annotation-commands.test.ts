import type { CheckRunAnnotation } from "@reviewbot/github/render-annotations";
import { describe, expect, it } from "vitest";
import { annotationCommands } from "./annotation-commands.js";

const annotation = (level: CheckRunAnnotation["annotation_level"], line: number): CheckRunAnnotation => ({
  path: "src/a.ts",
  start_line: line,
  end_line: line,
  annotation_level: level,
  message: `m${line}`,
  title: "lint: R1",
});

describe("annotationCommands", () => {
  it("shows ten of each type and returns the rest, in order", () => {
    const all = [
      ...Array.from({ length: 12 }, (_, i) => annotation("failure", i + 1)),
      ...Array.from({ length: 3 }, (_, i) => annotation("warning", 100 + i)),
      ...Array.from({ length: 11 }, (_, i) => annotation("notice", 200 + i)),
    ];
    const { commands, overflow } = annotationCommands(all);
    expect(commands.filter((c) => c.startsWith("::error "))).toHaveLength(10);
    expect(commands.filter((c) => c.startsWith("::warning "))).toHaveLength(3);
    expect(commands.filter((c) => c.startsWith("::notice "))).toHaveLength(10);
    expect(overflow.map((a) => a.start_line)).toEqual([11, 12, 210]);
    expect(commands.length + overflow.length).toBe(all.length);
  });

  it("writes the location, the columns and the title", () => {
    const { commands } = annotationCommands([{ ...annotation("warning", 4), start_column: 2, end_column: 2, title: "a, b: c" }]);
    expect(commands).toEqual(["::warning file=src/a.ts,line=4,endLine=4,col=2,endColumn=2,title=a%2C b%3A c::m4"]);
  });
});
