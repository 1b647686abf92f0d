import { describe, expect, it } from "vitest";
import { eventJson, readSseEvents } from "./sse.js";

describe("readSseEvents", () => {
  it("splits events at blank lines, names them, joins data lines and skips comments", () => {
    const text = ": keep-alive\nevent: ping\ndata: {}\n\ndata: one\ndata:two\n\nid: 7\nretry: 10\n\ndata: last";
    expect(readSseEvents(text)).toEqual([
      { event: "ping", data: "{}" },
      { event: "message", data: "one\ntwo" },
      { event: "message", data: "last" },
    ]);
  });

  it("takes CRLF and CR line ends, and a field without a colon", () => {
    expect(readSseEvents("data: a\r\n\r\ndata: b\r\rdata\n\n")).toEqual([
      { event: "message", data: "a" },
      { event: "message", data: "b" },
      { event: "message", data: "" },
    ]);
  });

  it("keeps a value's colons and all but one leading space", () => {
    expect(readSseEvents('data:  {"a": "b:c"}\n\n')).toEqual([{ event: "message", data: ' {"a": "b:c"}' }]);
  });

  it("refuses a text past its cap", () => {
    expect(() => readSseEvents("data: x\n\n".repeat(10), 50)).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });

  it("names a non-JSON event by position", () => {
    expect(() => eventJson({ event: "message", data: "{nope" }, 3)).toThrow("event 3 of the stream is not JSON");
  });
});
