import type { IncomingMessage } from "node:http";
import { AppError } from "@reviewbot/core/errors";

/** A body as the chunks it arrived in: concatenated only by a caller that keeps it. */
export interface BodyChunks {
  readonly chunks: readonly Buffer[];
  readonly total: number;
}

/**
 * How fast a body must arrive: all of it within `deadlineMs` of the read starting, and at least
 * `minBytesPerSecond` in every second of it. A sender that trickles its body holds whatever the
 * read holds (a webhook read slot) for as long as it likes unless the read gives up on it.
 */
export interface BodyPace {
  readonly deadlineMs: number;
  readonly minBytesPerSecond: number;
}

/**
 * The window the rate is measured over: a sender keeps to the rate by sending a window's worth at
 * a time, so one second is as long as a trickler can hold a read before it is seen as slow, and
 * long enough for a real sender's TCP to ride out a lost packet.
 */
export const PACE_WINDOW_MS = 1000;

/**
 * Refuses a declared `Content-Length` above `maxBytes` (or one that is not a number) before a
 * byte is read.
 *
 * @throws AppError `BODY_TOO_LARGE`
 */
export function refuseDeclaredLength(request: IncomingMessage, maxBytes: number): void {
  const declared = request.headers["content-length"];
  if (declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > maxBytes)) {
    throw tooLarge(maxBytes, "content-length");
  }
}

/**
 * Reads a request body as chunks, refusing more than `maxBytes`: by the declared Content-Length
 * before a byte is read, and again while streaming (a chunked body declares no length). Each
 * chunk is handed to `onChunk` as it arrives (the webhook's HMAC is computed while streaming, so
 * a body it refuses is never copied). With a `pace`, a body that arrives too slowly is refused as
 * soon as that is known. On refusal the stream is paused, not drained; the caller answers with
 * `Connection: close`.
 *
 * @throws AppError `BODY_TOO_LARGE`, `BODY_TOO_SLOW`, or `BODY_UNREADABLE` when the connection fails first
 */
export async function readBodyChunks(request: IncomingMessage, maxBytes: number, onChunk?: (chunk: Buffer) => void, pace?: BodyPace): Promise<BodyChunks> {
  refuseDeclaredLength(request, maxBytes);
  return new Promise<BodyChunks>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let windowBytes = 0;
    const tooSlow = (missed: "deadline" | "rate"): void => {
      cleanup();
      request.pause();
      const details = { receivedBytes: total, deadlineMs: pace?.deadlineMs, minBytesPerSecond: pace?.minBytesPerSecond, missed };
      const message =
        missed === "deadline"
          ? `the body did not arrive within ${pace?.deadlineMs} ms`
          : `the body arrived slower than ${pace?.minBytesPerSecond} bytes a second`;
      reject(new AppError("BODY_TOO_SLOW", message, { details }));
    };
    const deadline =
      pace === undefined
        ? undefined
        : setTimeout(() => {
            tooSlow("deadline");
          }, pace.deadlineMs);
    const ticker =
      pace === undefined
        ? undefined
        : setInterval(() => {
            if (windowBytes < (pace.minBytesPerSecond * PACE_WINDOW_MS) / 1000) tooSlow("rate");
            windowBytes = 0;
          }, PACE_WINDOW_MS);
    const cleanup = (): void => {
      clearTimeout(deadline);
      clearInterval(ticker);
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      windowBytes += chunk.length;
      if (total > maxBytes) {
        cleanup();
        request.pause();
        reject(tooLarge(maxBytes, "stream"));
        return;
      }
      onChunk?.(chunk);
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ chunks, total });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new AppError("BODY_UNREADABLE", "the request body could not be read", { cause: err }));
    };
    const onAborted = (): void => {
      onError(new Error("request aborted"));
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("aborted", onAborted);
  });
}

/** {@link readBodyChunks}, concatenated into one buffer. */
export async function readRawBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const body = await readBodyChunks(request, maxBytes);
  return Buffer.concat(body.chunks, body.total);
}

function tooLarge(maxBytes: number, detectedBy: "content-length" | "stream"): AppError {
  return new AppError("BODY_TOO_LARGE", `the body exceeds ${maxBytes} bytes`, { details: { maxBytes, detectedBy } });
}
