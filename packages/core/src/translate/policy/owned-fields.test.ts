import { describe, expect, it } from "vitest";
import { deepEqual, OwnedFields } from "./owned-fields";

describe("OwnedFields", () => {
  it("merges different members of one field from different owners", () => {
    const fields = new OwnedFields();
    fields.commit({ retries: { attempts: 3 } }, "a");
    expect(fields.conflicts({ retries: { perTryTimeout: "2s" } })).toEqual([]);
    fields.commit({ retries: { perTryTimeout: "2s" } }, "b");
    expect(fields.value).toEqual({ retries: { attempts: 3, perTryTimeout: "2s" } });
    expect([...fields.parents]).toEqual(["a", "b"]);
  });

  it.each([
    [{ timeout: "5s" }, { timeout: "10s" }, [{ path: "timeout", owner: "a" }]],
    [{ timeout: "5s" }, { timeout: "5s" }, []],
    [{ pool: { tcp: { max: 1 } } }, { pool: { tcp: { max: 2 }, http: { x: 1 } } }, [{ path: "pool.tcp.max", owner: "a" }]],
    [{ route: [{ w: 1 }] }, { route: [{ w: 2 }] }, [{ path: "route", owner: "a" }]],
    [{ route: [{ w: 1 }] }, { route: [{ w: 1 }] }, []],
    [{ a: 1 }, { b: 1 }, []],
  ])("conflicts(%j then %j) = %j", (first, second, conflicts) => {
    const fields = new OwnedFields();
    fields.commit(first, "a");
    expect(fields.conflicts(second)).toEqual(conflicts);
  });

  it("keeps the first owner of a leaf, and names a policy that only repeated values as a parent", () => {
    const fields = new OwnedFields();
    fields.commit({ timeout: "5s" }, "a");
    fields.commit({ timeout: "5s" }, "b");
    fields.commit({ x: 1 }, "c");
    expect(fields.conflicts({ timeout: "1s" })).toEqual([{ path: "timeout", owner: "a" }]);
    expect([...fields.parents]).toEqual(["a", "b", "c"]);
  });

  it("does not alias the committed object's nested members", () => {
    const incoming = { pool: { tcp: { max: 1 } } };
    const fields = new OwnedFields();
    fields.commit(incoming, "a");
    fields.commit({ pool: { http: { x: 1 } } }, "b");
    expect(incoming).toEqual({ pool: { tcp: { max: 1 } } });
  });
});

describe("deepEqual", () => {
  it.each([
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [[1, 2], [2, 1], false],
    [{ a: [1] }, { a: [1] }, true],
    [{ a: 1 }, { a: "1" }, false],
  ])("deepEqual(%j, %j) = %s", (a, b, equal) => {
    expect(deepEqual(a, b)).toBe(equal);
  });
});
