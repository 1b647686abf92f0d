import { z } from "zod";

/**
 * A tool's parameters as a plain JSON Schema object, which both OpenAI function `parameters` and
 * Anthropic `input_schema` take: no `$schema`, nothing unrepresentable, and the input side of the
 * schema, so defaulted fields (`side`) stay optional for the model.
 */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const parameters = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as Record<string, unknown>;
  delete parameters.$schema;
  return parameters;
}
