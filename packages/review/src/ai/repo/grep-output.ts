export interface GrepHit {
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  /** The line's text, cut to `maxTextChars` with a final `…` when longer. */
  readonly text: string;
}

export interface GrepOutputOptions {
  /** What git prints before each path when grepping a tree: `<sha>:`. */
  readonly prefix: string;
  readonly maxHits: number;
  readonly maxTextChars: number;
}

/** Paths in trees the checkout accepted are at most 4,096 bytes; a longer field is not a hit we can name. */
const MAX_PATH_FIELD = 16 * 1024;
const MAX_LINE_FIELD = 20;
const PATH = 0;
const LINE = 1;
const TEXT = 2;

/**
 * Parses `git grep -n -z` output, `<sha>:<path> NUL <line> NUL <text> LF`, as it streams in. Each
 * byte is looked at once (by `indexOf`) and only the first bytes of each field are kept, so a PR's
 * 64 MiB one-line file costs its length in time and a few hundred bytes in memory. The text is the
 * last field and ends at LF only, so a NUL inside it (past git's binary probe) cannot shift fields.
 */
export class GrepOutput {
  readonly hits: GrepHit[] = [];
  readonly #options: GrepOutputOptions;
  #field = PATH;
  #pieces: Buffer[] = [];
  #kept = 0;
  #cut = false;
  #path: string | null = null;
  #line = 0;
  #more = false;

  constructor(options: GrepOutputOptions) {
    this.#options = options;
  }

  /** Whether git printed more hits than `maxHits` (the rest are not parsed). */
  get more(): boolean {
    return this.#more;
  }

  /** Takes the next chunk; returns true once the hit cap is passed, when git can be stopped. */
  push(chunk: Buffer): boolean {
    let start = 0;
    while (start < chunk.length && !this.#more) {
      if (this.hits.length >= this.#options.maxHits) {
        this.#more = true;
        break;
      }
      const end = chunk.indexOf(this.#field === TEXT ? 10 : 0, start);
      this.#keep(chunk.subarray(start, end === -1 ? chunk.length : end));
      if (end === -1) break;
      this.#endField();
      start = end + 1;
    }
    return this.#more;
  }

  #keep(piece: Buffer): void {
    const cap = this.#field === PATH ? MAX_PATH_FIELD : this.#field === LINE ? MAX_LINE_FIELD : this.#options.maxTextChars * 4;
    const room = cap - this.#kept;
    if (piece.length > room) this.#cut = true;
    if (room > 0 && piece.length > 0) {
      const kept = piece.subarray(0, room);
      // A copy: a view would keep the whole 64 KiB chunk alive.
      this.#pieces.push(Buffer.from(kept));
      this.#kept += kept.length;
    }
  }

  #endField(): void {
    const value = Buffer.concat(this.#pieces).toString("utf8");
    const cut = this.#cut;
    this.#pieces = [];
    this.#kept = 0;
    this.#cut = false;
    if (this.#field === PATH) {
      const { prefix } = this.#options;
      this.#path = cut || !value.startsWith(prefix) ? null : value.slice(prefix.length);
      this.#field = LINE;
    } else if (this.#field === LINE) {
      this.#line = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
      this.#field = TEXT;
    } else {
      if (this.#path !== null && this.#line > 0) {
        this.hits.push({ path: this.#path, line: this.#line, text: cutText(value, this.#options.maxTextChars, cut) });
      }
      this.#field = PATH;
    }
  }
}

/** `text` cut to `max` characters (never between the halves of a surrogate pair), `…` marking a cut. */
function cutText(text: string, max: number, cut: boolean): string {
  if (!cut && text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
