import { describe, expect, it } from "vitest";
import { escapeData, escapeProperty, workflowCommand } from "./workflow-command.js";

describe("workflow commands", () => {
  it.each([
    ["plain", "plain"],
    ["100%", "100%25"],
    ["a\nb", "a%0Ab"],
    ["a\r\n::error::forged", "a%0D%0A::error::forged"],
    ["%0A already escaped", "%250A already escaped"],
  ])("escapes the message %j", (message, escaped) => {
    expect(escapeData(message)).toBe(escaped);
  });

  it.each([
    ["src/a.ts", "src/a.ts"],
    ["C:\\x,y", "C%3A\\x%2Cy"],
    ["a\nline=1", "a%0Aline=1"],
    ["t::x", "t%3A%3Ax"],
  ])("escapes the property %j", (value, escaped) => {
    expect(escapeProperty(value)).toBe(escaped);
  });

  it("keeps a hostile finding inside one command on one line", () => {
    const line = workflowCommand("error", { file: "a,b.ts", line: 3, title: "x::y" }, "bad\n::warning file=z::forged\r\n%");
    expect(line).toBe("::error file=a%2Cb.ts,line=3,title=x%3A%3Ay::bad%0A::warning file=z::forged%0D%0A%25");
    expect(line).not.toMatch(/[\r\n]/);
  });

  it("writes a command without properties", () => {
    expect(workflowCommand("notice", {}, "hi")).toBe("::notice::hi");
  });
});
