/**
 * Splits a stream of NUL-terminated records (git's `-z` output) arriving in arbitrary chunks,
 * keeping only the unfinished tail in memory.
 */
export class NulRecords {
  #tail: Buffer = Buffer.alloc(0);

  /** Returns the records completed by this chunk. */
  push(chunk: Buffer): Buffer[] {
    const data = this.#tail.length === 0 ? chunk : Buffer.concat([this.#tail, chunk]);
    const records: Buffer[] = [];
    let start = 0;
    for (let end = data.indexOf(0, start); end !== -1; end = data.indexOf(0, start)) {
      records.push(data.subarray(start, end));
      start = end + 1;
    }
    this.#tail = Buffer.from(data.subarray(start));
    return records;
  }
}

/** Splits a whole `-z` output into records, as bytes (file names need not be UTF-8). */
export function splitNulBuffers(output: Buffer): Buffer[] {
  const records = new NulRecords().push(output);
  const terminated = records.reduce((length, record) => length + record.length + 1, 0);
  // An unterminated final record still counts.
  if (terminated < output.length) records.push(output.subarray(terminated));
  return records;
}

/** Splits a whole `-z` output into records as strings. */
export function splitNul(output: Buffer): string[] {
  return splitNulBuffers(output).map((record) => record.toString("utf8"));
}
