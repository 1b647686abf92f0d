/**
 * Collects a sandbox's stdout and stderr against one shared byte budget, counting while the output
 * streams: the moment the budget is spent, `onExhausted` fires (the engine kills the sandbox) and
 * later bytes are dropped. The worker's memory stays bounded whatever the helper prints — one
 * gigabyte on a single line, invalid UTF-8 or NULs: bytes are kept as bytes and never split into
 * lines here.
 */
export class OutputBudget {
  readonly #stdout: Buffer[] = [];
  readonly #stderr: Buffer[] = [];
  readonly #limit: number;
  readonly #onExhausted: () => void;
  #used = 0;
  #truncated = false;

  constructor(limitBytes: number, onExhausted: () => void) {
    this.#limit = limitBytes;
    this.#onExhausted = onExhausted;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  stdout(chunk: Buffer): void {
    this.#take(this.#stdout, chunk);
  }

  stderr(chunk: Buffer): void {
    this.#take(this.#stderr, chunk);
  }

  collected(): { stdout: Buffer; stderr: Buffer } {
    return { stdout: Buffer.concat(this.#stdout), stderr: Buffer.concat(this.#stderr) };
  }

  #take(into: Buffer[], chunk: Buffer): void {
    if (this.#truncated) return;
    const room = this.#limit - this.#used;
    if (chunk.length <= room) {
      into.push(chunk);
      this.#used += chunk.length;
      return;
    }
    if (room > 0) into.push(Buffer.from(chunk.subarray(0, room)));
    this.#used = this.#limit;
    this.#truncated = true;
    this.#onExhausted();
  }
}
