import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../http/middleware/rate-limiter";
import { readEnv } from "./env";

/** The least environment readEnv accepts, with `MESHPLANE_RATE_LIMITS` set to `value`. */
const withLimits = (value: string) =>
  readEnv({ MESHPLANE_TABLE: "t", MESHPLANE_QUEUE_URL: "http://q", MESHPLANE_SIGNING_KEY_FILE: "k", MESHPLANE_CA_KEK_FILE: "c", MESHPLANE_RATE_LIMITS: value });

describe("MESHPLANE_RATE_LIMITS", () => {
  it("takes class=requests pairs, per minute, for every class, refusals included", () => {
    expect(withLimits("read=6000, plan=120,refused=1000000").rateLimits).toEqual({ read: 6000, plan: 120, refused: 1_000_000 });
    // A configured number replaces a class's limit per window (functions/entries/runtime.ts): per minute, as
    // every class's window is a minute.
    expect(Object.values(DEFAULT_LIMITS).map((l) => l.windowMs)).toEqual(Object.keys(DEFAULT_LIMITS).map(() => 60_000));
  });

  it.each(["read=5=6", "read=0", "read=-1", "read=1.5", "read=", "reads=5", "read", "read=0x10", "read=5,read=6"])(
    "refuses %j, naming the setting and the pair",
    (value) => {
      expect(() => withLimits(value)).toThrow(/^MESHPLANE_RATE_LIMITS: "read/);
    },
  );
});
