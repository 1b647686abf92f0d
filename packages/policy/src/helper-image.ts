import { fail, quote, type CheckResult } from "./config-error.js";
import { IMAGE_NAME, type OperatorPolicy } from "./operator-policy.js";

/** The image a helper runs in: its allowlist name and the reference the engine pulls. */
export interface HelperImage {
  readonly name: string;
  readonly reference: string;
}

/**
 * A repository picks its helper's image by **name** from the operator's allowlist, never by
 * reference: a reference, path or URL where a name belongs is refused, and so is a name the
 * allowlist lacks (the message lists the allowed names). No image named: the operator's default.
 *
 * @param field the path of the `image` key in the config, for messages.
 */
export function resolveHelperImage(requested: string | undefined, operator: OperatorPolicy, field: string): CheckResult<HelperImage> {
  const name = requested ?? operator.defaultImage;
  const allowed = `allowed: ${Object.keys(operator.images).sort().join(", ")}`;
  const refuse = (reason: string) => fail(field, `${quote(name)} ${reason} (${allowed})`);
  if (/[/:@.\\]/.test(name)) return refuse("is an image reference or path; give a name from the operator's allowlist");
  if (!IMAGE_NAME.test(name)) return refuse(`is not an image name, ${String(IMAGE_NAME)}`);
  // Own keys only: `constructor` or `__proto__` must not resolve through Object.prototype.
  const reference = Object.hasOwn(operator.images, name) ? operator.images[name] : undefined;
  if (reference === undefined) return refuse("is not in the operator's image allowlist");
  return { ok: true, value: { name, reference } };
}
