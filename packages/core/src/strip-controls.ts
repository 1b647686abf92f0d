// C0 controls except \t and \n, DEL and C1 controls (CR goes too: it overwrites a line on a
// terminal), and the bidi controls of Trojan Source (CVE-2021-42574) plus LRM, RLM and ALM.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

/**
 * Removes the control and bidi characters that make untrusted text act on a terminal or display
 * differently from what it is; tab and newline stay. Shared by the pipeline's output sanitiser and
 * the publisher's Markdown sanitiser, so both strip the same set.
 */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, "");
}
