/** The metric names a Prometheus text exposition declares (`# TYPE` lines), with a histogram's series names. */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = "", kind] = match;
    names.add(name);
    if (kind === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
    if (kind === "summary") for (const suffix of ["_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}

const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g;
const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"]);

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers, ranges,
 * grouping label lists, function names (an identifier before `(`) and keywords are taken out.
 */
export function queriedNames(expr: string): Set<string> {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(GROUPING, " ");
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w:.$])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name = "", call] = match;
    if (call === undefined && !KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return names;
}
