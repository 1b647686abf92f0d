import { open } from "node:fs/promises";
import { AppError } from "@reviewbot/core/errors";

/** GitHub caps a webhook payload at 25 MB; the fields a run uses sit in far less, and a PR body at 65,536 characters. */
export const EVENT_PAYLOAD_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The event payload the runner wrote to `GITHUB_EVENT_PATH`, read up to `maxBytes` (one byte more
 * tells a larger file, which is refused: never parsed in part), then parsed as JSON. Without a path,
 * undefined (a run with no event file reviews nothing).
 *
 * @throws AppError `CONFIG_INVALID` for a file too large or not JSON (its contents are not echoed).
 */
export async function readEventPayload(path: string | undefined, maxBytes = EVENT_PAYLOAD_MAX_BYTES): Promise<unknown> {
  if (path === undefined || path === "") return undefined;
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new AppError("CONFIG_INVALID", `GITHUB_EVENT_PATH: the event payload is larger than ${String(maxBytes)} bytes`);
    }
    try {
      return JSON.parse(buffer.subarray(0, length).toString("utf8")) as unknown;
    } catch {
      throw new AppError("CONFIG_INVALID", "GITHUB_EVENT_PATH: the event payload is not JSON");
    }
  } finally {
    await file.close();
  }
}
