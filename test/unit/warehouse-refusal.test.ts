import assert from "node:assert/strict";
import { ApiTimeoutError, createApiError } from "../../src/api/errors";
import type { Service } from "../../src/api/schemas";
import { warehouseRefusal, warehouseTimeoutNote } from "../../src/provider/warehouse";

/*
 * Which answers the converger waits out as a warehouse's refusal: any 4xx without a meaning of its
 * own, to a stop of a primary or a start of a secondary, as the service's last GET showed it.
 */

const WAREHOUSE = "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";
const primary = { id: "p", state: "running", dataWarehouseId: WAREHOUSE, isPrimary: true } as Service;
const secondary = { ...primary, isPrimary: false } as Service;
const answer = (status: number, serverMessage = "Cannot do that now") =>
  createApiError({ status, serverMessage, requestId: "r-1", method: "PATCH", path: "/state" });

describe("a warehouse's refusal", () => {
  it("any 4xx without a meaning of its own to a primary's stop or a secondary's start, whatever its wording", () => {
    // 409 included: waited out either way, it counts as the warehouse's so that a deadline names it.
    for (const status of [400, 408, 409, 412, 422, 424, 451, 499]) {
      assert.equal(
        warehouseRefusal(answer(status, "x"), primary, "stop", undefined)?.role,
        "primary",
        `${status}`,
      );
      assert.equal(warehouseRefusal(answer(status), secondary, "start", undefined)?.role, "secondary");
    }
    const wait = warehouseRefusal(answer(400), primary, "stop", undefined);
    assert.deepEqual(wait, {
      warehouseId: WAREHOUSE,
      role: "primary",
      command: "stop",
      refusals: 1,
      lastAnswer: "400 Cannot do that now (PATCH /state, requestId r-1)",
    });
    assert.equal(warehouseRefusal(answer(422), primary, "stop", wait)?.refusals, 2, "counted on");
    const other = { ...wait!, warehouseId: "another" };
    assert.equal(
      warehouseRefusal(answer(422), primary, "stop", other)?.refusals,
      1,
      "a new warehouse counts anew",
    );
  });

  it("not a status with its own meaning, a 5xx, no answer, nor a 400 saying the service is not found", () => {
    const errors = [401, 403, 404, 429, 500, 503, 399].map((status) => answer(status));
    errors.push(
      answer(400, "Service not found"),
      new ApiTimeoutError({ status: undefined, message: "t", method: "PATCH", path: "/state" }),
    );
    for (const error of [...errors, new Error("400 plain")])
      assert.equal(warehouseRefusal(error, primary, "stop", undefined), undefined, error.message);
  });

  it("not a primary's start, a secondary's stop, nor a service the GET shows in no warehouse or in no role", () => {
    assert.equal(warehouseRefusal(answer(400), primary, "start", undefined), undefined);
    assert.equal(warehouseRefusal(answer(400), secondary, "stop", undefined), undefined);
    for (const fields of [
      { dataWarehouseId: null },
      { dataWarehouseId: "" },
      { isPrimary: null },
      { isPrimary: undefined },
    ])
      for (const command of ["start", "stop"] as const)
        assert.equal(
          warehouseRefusal(answer(400), { ...primary, ...fields } as Service, command, undefined),
          undefined,
        );
    assert.equal(warehouseRefusal(answer(400), undefined, "stop", undefined), undefined);
  });

  it("the deadline's note names the warehouse, what must happen first, and the refusals", () => {
    const wait = warehouseRefusal(answer(400), secondary, "start", undefined)!;
    assert.equal(
      warehouseTimeoutNote(wait),
      ` (it is a secondary of warehouse ${WAREHOUSE}, whose primary service must be started first, in the same ` +
        `stack or by hand; the start was refused once, last: 400 Cannot do that now (PATCH /state, requestId r-1))`,
    );
    assert.match(warehouseTimeoutNote({ ...wait, refusals: 3 }), /refused 3 times/);
    const long = warehouseTimeoutNote({ ...wait, warehouseId: "w".repeat(100_000) });
    assert.ok(
      long.includes(`warehouse ${"w".repeat(120)}… (99880 more characters), whose`),
      long.slice(0, 300),
    );
    assert.ok(long.length < 1_000, `the note is ${long.length} characters`);
  });
});
