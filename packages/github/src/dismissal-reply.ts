/** What a trusted person's dismissal reply says of our finding. */
export type DismissalReason = "wont-fix" | "false-positive";

/** Only this much of a first line is read: the phrase and its punctuation fit well within it. */
const FIRST_LINE_MAX = 200;

// The phrase, any run of `.` or `!`, then the end of the line or a separator before a reason
// ("won't fix: intended", "false positive — the input is trusted", "wontfix - later"). A question
// ("false positive?") or a longer sentence ("won't fix this yet") is not a dismissal.
const GRAMMAR = /^(?:(won'?t[ -]?fix)|false[ -]positive)[.!]*(?:$|\s*[:;,\u2013\u2014]|\s+-\s)/;

/**
 * Whether a reply's first line dismisses the finding it answers (issue 23, part 3): `won't fix`,
 * `wont fix`, `wontfix`, `won't-fix`, `false positive` or `false-positive`, case and the
 * apostrophe's form aside (’ reads as '), runs of spaces as one, optionally ended by `.` or `!`,
 * optionally followed by `:`, `;`, `,`, a dash and a reason. Reads at most the first 200
 * characters, so its cost does not grow with the body. Null when it is not a dismissal.
 */
export function dismissalReason(body: string | null): DismissalReason | null {
  if (body === null) return null;
  const head = body.slice(0, FIRST_LINE_MAX);
  const firstLine = head.split(/[\r\n]/, 1)[0] ?? "";
  const normalised = firstLine
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
  const found = GRAMMAR.exec(normalised);
  if (found === null) return null;
  return found[1] === undefined ? "false-positive" : "wont-fix";
}
