import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appendOutputs, outputEntry } from "./output-file.js";

// The runner's reading of the file (actions/runner's SetOutputFileCommand), enough to see what a value would set.
function readRunnerFile(text: string): Record<string, string> {
  const lines = text.split("\n");
  const outputs: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    const equals = line.indexOf("=");
    if (heredoc !== null && (equals === -1 || heredoc.index + (heredoc[1] ?? "").length < equals)) {
      const value: string[] = [];
      for (i++; lines[i] !== heredoc[2]; i++) {
        if (i >= lines.length) throw new Error("unterminated heredoc");
        value.push(lines[i] ?? "");
      }
      outputs[heredoc[1] ?? ""] = value.join("\n");
    } else {
      outputs[line.slice(0, equals)] = line.slice(equals + 1);
    }
  }
  return outputs;
}

describe("outputEntry", () => {
  it("writes a one-line value as name=value", () => {
    expect(outputEntry("findings", "3")).toBe("findings=3\n");
  });

  it("writes a multi-line value in the heredoc form and the runner reads it back whole", () => {
    const hostile = "x\nconclusion=success\nEOF\n::error::y";
    const text = outputEntry("report", hostile, "EOF_1") + outputEntry("conclusion", "failure");
    expect(text).toBe(`report<<EOF_1\n${hostile}\nEOF_1\nconclusion=failure\n`);
    expect(readRunnerFile(text)).toEqual({ report: hostile, conclusion: "failure" });
  });

  it("refuses a value that holds the delimiter (it would end the value early)", () => {
    expect(() => outputEntry("report", "a\nEOF_1\nconclusion=success", "EOF_1")).toThrow(/delimiter/);
  });

  it("uses a fresh random delimiter each time", () => {
    const [a, b] = [outputEntry("r", "a\nb"), outputEntry("r", "a\nb")];
    expect(a.split("\n")[0]).toMatch(/^r<<ghadelimiter_[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });

  it.each(["a\nb", "a=b", "a<<b", ""])("refuses the output name %j", (name) => {
    expect(() => outputEntry(name, "v")).toThrow(/cannot be written/);
  });
});

describe("appendOutputs", () => {
  let dir = "";
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends after what earlier steps wrote", async () => {
    dir = await mkdtemp(join(tmpdir(), "outputs-"));
    const file = join(dir, "output");
    await appendOutputs(file, { a: "1" });
    await appendOutputs(file, { b: "two\nlines" });
    expect(readRunnerFile(await readFile(file, "utf8"))).toEqual({ a: "1", b: "two\nlines" });
  });
});
