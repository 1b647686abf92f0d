/**
 * A tool call's arguments with their keys sorted at every depth, so that the loop can tell a
 * repeated call: the same call written with its keys in another order, or other spacing, is the
 * same call. Text that is not JSON is its own key.
 */
export function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
