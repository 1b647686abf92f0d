import type { IncomingMessage } from "node:http";
import { AppError } from "@reviewbot/core/errors";

/** A body as the chunks it arrived in: concatenated only by a caller that keeps it. */
export interface BodyChunks {
  readonly chunks: readonly Buffer[];
  readonly total: number;
}

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
 * a body it refuses is never copied). On refusal the stream is paused, not drained; the caller
 * answers with `Connection: close`.
 *
 * @throws AppError `BODY_TOO_LARGE`, or `BODY_UNREADABLE` when the connection fails first
 */
export async function readBodyChunks(request: IncomingMessage, maxBytes: number, onChunk?: (chunk: Buffer) => void): Promise<BodyChunks> {
  refuseDeclaredLength(request, maxBytes);
  return new Promise<BodyChunks>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
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
