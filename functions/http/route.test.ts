import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AppEnv } from "./context";
import { onError } from "./problem";
import { honoPath, route } from "./route";

/** A route whose one path parameter must be digits, served alone. */
function served() {
  const r = route({
    method: "get",
    path: "/v1/things/{id}",
    tag: "test",
    access: "public",
    summary: "a thing",
    params: z.object({ id: z.string().regex(/^\d+$/, "must be digits") }),
    responses: { 200: { description: "the thing" } },
    handler: async (c, { params }) => c.json({ id: params.id }),
  });
  const app = new Hono<AppEnv>();
  app.get(honoPath(r.path), (c) => r.handle(c));
  app.onError(onError);
  return app;
}

describe("route({ params })", () => {
  it("hands the handler its path parameters parsed, and answers 400 naming the parameter that does not parse", async () => {
    const ok = await served().request("/v1/things/42");
    expect(await ok.json()).toEqual({ id: "42" });
    const bad = await served().request("/v1/things/x%2Fy");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: unknown[] }).errors).toEqual([{ path: "path.id", message: "must be digits" }]);
  });

  it("refuses at definition a route whose params do not declare exactly its path's parameters", () => {
    const def = { method: "get", tag: "test", access: "public", summary: "x", responses: {}, handler: async () => new Response() } as const;
    expect(() => route({ ...def, path: "/v1/things/{id}" })).toThrow("params must declare exactly id");
    expect(() => route({ ...def, path: "/v1/things/{id}", params: z.object({ name: z.string() }) })).toThrow("it declares name");
    expect(() => route({ ...def, path: "/v1/things", params: z.object({ id: z.string() }) })).toThrow("exactly nothing");
  });
});
