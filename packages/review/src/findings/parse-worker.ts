/**
 * The entry of the worker thread `parseUnderBudget` starts: extracts the findings of the one
 * output it was given and posts them back. Whatever it costs (time, heap) is the thread's, held
 * to the limits its parent set, never the event loop's.
 */
import { parentPort, workerData } from "node:worker_threads";
import { extractFindings, type ExtractRequest } from "./extract-findings.js";

parentPort?.postMessage(extractFindings(workerData as ExtractRequest));
