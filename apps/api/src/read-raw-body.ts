import type { IncomingMessage } from "node:http";
import { AppError } from "@reviewbot/core/errors";

/**
 * Reads a request body as bytes, refusing more than `maxBytes`: by the declared Content-Length
 * before a byte is read, and again while streaming (a chunked body declares no length). On
 * refusal the stream is paused, not drained; the caller answers with `Connection: close`.
 */
export async function readRawBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = request.headers["content-length"];
  if (declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > maxBytes)) {
    throw tooLarge(maxBytes, "content-length");
  }
  return new Promise<Buffer>((resolve, reject) => {
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
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new AppError("WEBHOOK_MALFORMED", "the request body could not be read", { cause: err }));
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

function tooLarge(maxBytes: number, detectedBy: "content-length" | "stream"): AppError {
  return new AppError("WEBHOOK_TOO_LARGE", `the body exceeds ${maxBytes} bytes`, { details: { maxBytes, detectedBy } });
}
