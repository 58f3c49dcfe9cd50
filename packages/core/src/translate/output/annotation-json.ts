import type { z } from "zod";

/**
 * The value of an annotation that carries JSON through the signed snapshot (the Services a generated
 * Gateway asks the agent to label: docs/agent.md#waypoint-bindings), or undefined when the text is
 * not JSON of `schema`'s shape. For the agent, which validates every input from the control plane.
 */
export function parseAnnotationJson<T>(text: string, schema: z.ZodType<T>): T | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}
