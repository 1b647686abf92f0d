import { z } from "zod";

/** What a judged pair came to: `failed` when the call itself did not return (budget, endpoint). */
export const JudgeVerdict = z.enum(["same", "different", "unparseable", "failed"]);
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;

/** Longer answers are not parsed at all: the judge is asked for one short JSON object. */
export const JUDGE_ANSWER_CHARS = 200;
const Answer = z.strictObject({ same: z.boolean() });

/**
 * The judge's answer, parsed strictly: exactly `{"same": true}` or `{"same": false}` (whitespace
 * around it allowed); anything else, a longer answer, prose, a fence or an extra key, is
 * `unparseable` and counts as not the same problem.
 */
export function parseJudgeAnswer(text: string): "same" | "different" | "unparseable" {
  if (text.length > JUDGE_ANSWER_CHARS) return "unparseable";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "unparseable";
  }
  const parsed = Answer.safeParse(json);
  if (!parsed.success) return "unparseable";
  return parsed.data.same ? "same" : "different";
}
