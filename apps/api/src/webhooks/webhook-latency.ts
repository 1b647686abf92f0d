import type { RequestHandler } from "express";
import type { Histogram } from "prom-client";

/**
 * Times each webhook request from its first byte handled to the answer's last byte written, into
 * `histogram` by status class (`2xx`, `4xx`, `5xx`: a bounded label set whatever a sender does).
 * A request whose client went away before the answer is counted as `closed`.
 */
export function timeWebhook(histogram: Histogram<"status">): RequestHandler {
  return (_request, response, next) => {
    const stop = histogram.startTimer();
    let done = false;
    const end = (status: string): void => {
      if (done) return;
      done = true;
      stop({ status });
    };
    response.once("finish", () => {
      end(`${Math.floor(response.statusCode / 100)}xx`);
    });
    response.once("close", () => {
      end("closed");
    });
    next();
  };
}
