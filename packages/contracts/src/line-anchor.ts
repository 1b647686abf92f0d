import { z } from "zod";

/**
 * 16 hex digits of the SHA-256 of a finding's anchor line (whitespace runs collapsed, ends
 * trimmed): what the publisher fingerprints a finding by, so a comment follows its line's text
 * across pushes, not its number.
 */
export const LineAnchor = z.string().regex(/^[0-9a-f]{16}$/, "must be 16 lowercase hex digits");
export type LineAnchor = z.infer<typeof LineAnchor>;
