/**
 * One input of a JavaScript action, read the way the runner passes it: `INPUT_<NAME>` with the
 * name upper-cased, spaces turned into underscores and hyphens kept (`llm-api-key` arrives as
 * `INPUT_LLM-API-KEY`), trimmed as `@actions/core`'s `getInput` trims it. An input the workflow
 * left out, or set to the empty string, reads as undefined: the runner passes `action.yml`'s
 * default itself, so an empty value means "not given" and the caller's own default applies.
 */
export function readActionInput(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`]?.trim();
  return value === undefined || value === "" ? undefined : value;
}
