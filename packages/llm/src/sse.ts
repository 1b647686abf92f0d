import { AppError } from "@reviewbot/core/errors";

/** One server-sent event: its `event:` name (`message` when none) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** The most text a stream parser takes: the model client's body cap (8 MiB), in UTF-16 units. */
export const MAX_STREAM_CHARS = 8 * 1024 * 1024;

/**
 * Splits a `text/event-stream` body into its events, as the HTML standard's parser does: lines end
 * at CRLF, LF or CR; `:` starts a comment; a field's value loses one leading space; a blank line
 * dispatches the event (an event without data is dropped); an unfinished last event is dispatched
 * too (lenient: a server may end without the blank line). `id:` and `retry:` mean nothing here.
 *
 * One pass over the text (`split` then one visit per line): linear in its length, and refused
 * beyond `maxChars`, so a hostile stream costs at most that.
 *
 * @throws AppError `LLM_RESPONSE_INVALID` when the text is longer than `maxChars`.
 */
export function readSseEvents(text: string, maxChars: number = MAX_STREAM_CHARS): SseEvent[] {
  if (text.length > maxChars) throw new AppError("LLM_RESPONSE_INVALID", `the event stream exceeds ${maxChars} characters`);
  const events: SseEvent[] = [];
  let name = "";
  let data: string[] = [];
  const dispatch = (): void => {
    if (data.length > 0) events.push({ event: name === "" ? "message" : name, data: data.join("\n") });
    name = "";
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      dispatch();
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") name = value;
  }
  dispatch();
  return events;
}

/** Parses one event's data as JSON. @throws AppError `LLM_RESPONSE_INVALID` naming the event's position. */
export function eventJson(event: SseEvent, position: number): unknown {
  try {
    return JSON.parse(event.data) as unknown;
  } catch {
    throw new AppError("LLM_RESPONSE_INVALID", `event ${position} of the stream is not JSON`);
  }
}
