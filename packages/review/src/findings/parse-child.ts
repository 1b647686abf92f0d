/**
 * The entry of the process `parseUnderBudget` starts: extracts the findings of the one output it
 * is sent and sends them back. Whatever it costs (time, heap) is this process's, held to the heap
 * flags its parent gave it; running out of heap aborts this process, never the worker.
 */
import { extractFindings, type ExtractRequest } from "./extract-findings.js";

process.once("message", (request: ExtractRequest) => {
  process.send?.(extractFindings(request), () => {
    process.disconnect();
  });
});
