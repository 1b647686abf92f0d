/**
 * A workflow command's message, escaped as the runner's toolkit escapes it (`@actions/core`'s
 * `escapeData`): `%` first, then CR and LF, so a message cannot end the command early or start
 * another one on a line of its own (`::` inside a message is harmless once no newline can precede it).
 */
export function escapeData(value: string): string {
  return value.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value (`escapeProperty`): as a message, and `:` and `,`, which end a property. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One workflow command line, `::name key=value,…::message`, properties in the given order. */
export function workflowCommand(name: string, properties: Readonly<Record<string, string | number>>, message: string): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${props === "" ? "" : ` ${props}`}::${escapeData(message)}`;
}
