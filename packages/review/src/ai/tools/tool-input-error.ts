/**
 * A tool call the model got wrong: a bad argument, a path outside the repository, a symlink, a
 * file too large to show. The loop answers the message to the model, which can call again, instead
 * of failing the review. The message starts with the tool's name and is passed on unwrapped, as the
 * loop's own words: model-supplied values in it are quoted and cut (`quote`), file contents never.
 */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}
