import { z } from "zod";

/** What kind of problem an AI finding names: the closed set `submit_review` offers the model, so reports can group and filter by it. */
export const AiCategory = z.enum(["bug", "security", "performance", "correctness", "maintainability", "style", "docs", "tests"]);
export type AiCategory = z.infer<typeof AiCategory>;
