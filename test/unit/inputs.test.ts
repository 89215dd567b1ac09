import assert from "node:assert/strict";
import { z } from "zod";
import { configure } from "../../src/provider";
import {
  checkFields,
  pickFields,
  requireIdOfProperties,
  requireValid,
  timeoutField,
  uuidField,
  UNKNOWN_VALUE,
} from "../../src/provider/inputs";
import * as runState from "../../src/provider/serviceRunStateInputs";
import { checkAndDiff, defineResource, organizationIdField, withDefaults } from "../../src/provider/spec";
import { loadSecondCopy } from "../helpers/secondCopy";

/*
 * What ServiceRunState's entry points accept, without any API call (check, diff, also run by
 * refresh), and the field rules both resources share.
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const SVC = "4a3b2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c1d";

describe("ServiceRunState diff", () => {
  const olds = {
    organizationId: ORG,
    serviceId: SVC,
    state: "running",
    timeoutSeconds: 1200,
    waitForState: true,
  };
  const observed = { ...olds, observedState: "running" };

  it("no change is exactly no change: nothing replaced, never delete-before-replace", async () => {
    assert.deepEqual(await runState.diff("x", observed, { ...olds }), {
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("drift seen by refresh (observed no longer satisfies the same desired state) is an update", async () => {
    assert.deepEqual(await runState.diff("x", { ...olds, observedState: "stopped" }, { ...olds }), {
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    assert.equal((await runState.diff("x", { ...olds, observedState: "idle" }, { ...olds })).changes, false);
    assert.equal((await runState.diff("x", { ...olds }, { ...olds })).changes, true, "never observed");
  });

  it("each option alone is an update without replacement; an unknown state is a change", async () => {
    for (const change of [{ timeoutSeconds: 60 }, { waitForState: false }, { state: UNKNOWN_VALUE }]) {
      const d = await runState.diff("x", observed, { ...olds, ...change });
      assert.equal(d.changes, true, JSON.stringify(change));
      assert.deepEqual(d.replaces, []);
    }
  });

  it("another service or organization alone replaces the resource", async () => {
    const other = "5b4c3d2e-1f0a-4b9c-8d7e-6f5a4b3c2d1e";
    for (const key of ["serviceId", "organizationId"]) {
      assert.deepEqual(await runState.diff("x", observed, { ...olds, [key]: other }), {
        changes: true,
        replaces: [key],
        deleteBeforeReplace: false,
      });
    }
  });

  it("a new desired state is an update even when the service is already there (its outputs say the new state)", async () => {
    // Stopped by hand, and now the program says stopped too: no command is needed, but the
    // recorded desired state must become "stopped".
    const d = await runState.diff("x", { ...olds, observedState: "stopped" }, { ...olds, state: "stopped" });
    assert.deepEqual(d, { changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("refuses to diff against invalid new inputs, naming the entry point", async () => {
    await assert.rejects(runState.diff("x", observed, { ...olds, state: "Running" }), (error: Error) =>
      error.message.startsWith("ServiceRunState diff: refusing to act on invalid properties"),
    );
  });
});

describe("ServiceRunState check, as the first one in a provider process", () => {
  // The field schemas are built once per process (src/api/lazy.ts), most likely by an earlier
  // test: a second copy of the module builds them again, as a new provider host does.
  const fresh = () =>
    loadSecondCopy<typeof runState>(require.resolve("../../src/provider/serviceRunStateInputs"));
  const valid = {
    organizationId: ORG,
    serviceId: SVC,
    state: "running",
    timeoutSeconds: 60,
    waitForState: false,
    onDestroy: "stop",
    deleteTimeoutSeconds: 90,
  };

  it("accepts every valid value of each field, and needs neither deleteTimeoutSeconds nor the options", async () => {
    const { check } = fresh();
    for (const change of [{}, { state: "stopped" }, { onDestroy: "leave" }, { waitForState: true }]) {
      assert.deepEqual((await check({}, { ...valid, ...change })).failures, [], JSON.stringify(change));
    }
    const { inputs, failures } = await check({}, { organizationId: ORG, serviceId: SVC, state: "stopped" });
    assert.deepEqual(failures, []);
    assert.equal(inputs.deleteTimeoutSeconds, undefined);
  });

  it("takes an option given as null as not given", async () => {
    const { check } = fresh();
    const nulls = { timeoutSeconds: null, waitForState: null, onDestroy: null, deleteTimeoutSeconds: null };
    assert.deepEqual(
      (await check({}, { organizationId: ORG, serviceId: SVC, state: "running", ...nulls })).failures,
      [],
    );
    // And the entry points then act on the defaults.
    assert.deepEqual(
      withDefaults(runState.serviceRunStateSpec, {
        organizationId: ORG,
        serviceId: SVC,
        state: "running",
        ...nulls,
      }),
      {
        organizationId: ORG,
        serviceId: SVC,
        state: "running",
        timeoutSeconds: 1200,
        waitForState: true,
        onDestroy: "leave",
      },
    );
  });

  it("names each bad field with its own message", async () => {
    const { check } = fresh();
    const { failures } = await check(
      {},
      {
        organizationId: "org",
        serviceId: 7,
        state: "paused",
        timeoutSeconds: "soon",
        waitForState: "yes",
        onDestroy: "delete",
        deleteTimeoutSeconds: 0,
      },
    );
    assert.deepEqual(failures, [
      {
        property: "organizationId",
        reason: 'organizationId must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b (got "org")',
      },
      { property: "serviceId", reason: "serviceId must be a string (got 7)" },
      { property: "state", reason: 'state must be "running" or "stopped" (got "paused")' },
      { property: "timeoutSeconds", reason: 'timeoutSeconds must be a number of seconds (got "soon")' },
      { property: "waitForState", reason: 'waitForState must be true or false (got "yes")' },
      { property: "onDestroy", reason: 'onDestroy must be "leave" or "stop" (got "delete")' },
      { property: "deleteTimeoutSeconds", reason: "deleteTimeoutSeconds must be greater than 0 (got 0)" },
    ]);
  });

  it("requires the organization, the service and the state", async () => {
    const { check } = fresh();
    // null: no configured default fills it in.
    const { failures } = await check({}, { organizationId: null, serviceId: null });
    assert.deepEqual(
      failures.map((f) => f.property),
      ["organizationId", "serviceId", "state"],
    );
  });
});

describe("input checks", () => {
  const fields = {
    id: { schema: uuidField("id"), required: true },
    timeout: { schema: timeoutField("timeout"), required: false },
  };

  it("timeouts: positive, at most a day, a number", () => {
    const reasonFor = (timeout: unknown) => checkFields({ id: ORG, timeout }, fields)[0]?.reason;
    assert.equal(reasonFor(86_400), undefined);
    assert.equal(reasonFor(0.5), undefined);
    assert.equal(reasonFor(0), "timeout must be greater than 0 (got 0)");
    assert.equal(reasonFor(86_401), "timeout must be at most 86400 (24 hours) (got 86401)");
    assert.equal(reasonFor("5"), 'timeout must be a number of seconds (got "5")');
    assert.equal(reasonFor(Number.NaN), "timeout must be a number of seconds (got null)");
  });

  it("a required field missing or null is reported; an optional one is not", () => {
    assert.deepEqual(checkFields({ timeout: null }, fields), [{ property: "id", reason: "id is required" }]);
    assert.deepEqual(checkFields({ id: null }, fields), [{ property: "id", reason: "id is required" }]);
    assert.deepEqual(checkFields({ id: "nope" }, fields), [
      { property: "id", reason: 'id must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b (got "nope")' },
    ]);
    assert.deepEqual(checkFields({ id: 5 }, fields), [
      { property: "id", reason: "id must be a string (got 5)" },
    ]);
  });

  it("unknown values pass check, and only check", () => {
    const unknownTimeout = { id: ORG, timeout: UNKNOWN_VALUE };
    assert.deepEqual(checkFields(unknownTimeout, fields), []);
    assert.equal(checkFields(unknownTimeout, fields, false).length, 1);
    assert.throws(() => requireValid("X create", unknownTimeout, fields));
    assert.doesNotThrow(() => requireValid("X diff", unknownTimeout, fields, true));
  });

  it("requireValid lists every problem under the entry point's name", () => {
    assert.throws(() => requireValid("X read", { id: "a", timeout: -1 }, fields), {
      message:
        "X read: refusing to act on invalid properties (the stack's state may be old or edited by hand; " +
        "fix the program, or run `pulumi refresh`):\n" +
        '- id: id must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b (got "a")\n' +
        "- timeout: timeout must be greater than 0 (got -1)",
    });
  });

  it("a value that breaks several rules gets every reason, separated by semicolons", () => {
    const code = z
      .string()
      .min(3, { error: "code is too short" })
      .regex(/^a/, { error: "code must start with a" });
    assert.deepEqual(checkFields({ code: "b" }, { code: { schema: code, required: true } }), [
      { property: "code", reason: 'code is too short; code must start with a (got "b")' },
    ]);
  });

  it("pickFields keeps only the named fields", () => {
    assert.deepEqual(Object.keys(pickFields(fields, ["timeout"])), ["timeout"]);
  });

  it("check fills absent values from the configured organization and defaults, never over a given one, and explains a missing organization", async () => {
    const spec = defineResource({
      name: "X",
      description: "x",
      fields: () => ({
        organizationId: organizationIdField(),
        serviceId: { schema: uuidField("serviceId"), description: "s", required: true },
        timeout: { schema: timeoutField("timeout"), description: "t", default: 60 },
      }),
      outputs: {},
      id: { fields: ["serviceId"], labels: ["service"] },
      importId: { form: "serviceId", minParts: 1 },
    });
    const { check } = checkAndDiff(spec);
    const saved = process.env.DBCLOUD_ORGANIZATION_ID;
    try {
      process.env.DBCLOUD_ORGANIZATION_ID = ORG;
      await configure({ config: { get: () => undefined } });
      const given = await check({}, { organizationId: SVC, serviceId: SVC, timeout: 5 });
      assert.deepEqual(given, { inputs: { organizationId: SVC, serviceId: SVC, timeout: 5 }, failures: [] });
      assert.deepEqual((await check({}, { serviceId: SVC })).inputs, {
        serviceId: SVC,
        organizationId: ORG,
        timeout: 60,
      });
      delete process.env.DBCLOUD_ORGANIZATION_ID;
      const missing = await check({}, {});
      assert.deepEqual(missing.inputs, { timeout: 60 });
      assert.deepEqual(missing.failures, [
        {
          property: "organizationId",
          reason:
            "organizationId is required: set it on the resource, or set stack config dbcloud:organizationId " +
            "or environment variable DBCLOUD_ORGANIZATION_ID",
        },
        { property: "serviceId", reason: "serviceId is required" },
      ]);
      const invalid = await check({}, { organizationId: "x", serviceId: SVC });
      assert.match(invalid.failures[0].reason, /must be a uuid/, "an invalid one keeps its own reason");
    } finally {
      if (saved === undefined) delete process.env.DBCLOUD_ORGANIZATION_ID;
      else process.env.DBCLOUD_ORGANIZATION_ID = saved;
    }
  });

  it("requireIdOfProperties names both sides by label, and cuts a long or hostile id: it names it, not carries it", () => {
    const labels = ["organization", "service"];
    assert.doesNotThrow(() => requireIdOfProperties("X read", `${ORG}/${SVC}`, labels, [ORG, SVC]));
    assert.throws(
      () => requireIdOfProperties("X read", `${SVC}/${ORG}`, labels, [ORG, SVC]),
      (e: Error) =>
        e.message.startsWith(
          `X read refused: the resource id names organization "${SVC}", service "${ORG}", ` +
            `but its properties name organization "${ORG}", service "${SVC}".`,
        ),
    );
    const long = "x".repeat(10_000);
    assert.throws(
      () => requireIdOfProperties("X read", long, labels, [ORG, SVC]),
      (e: Error) =>
        e.message.includes(`id "${"x".repeat(120)}… (9880 more characters)"`) && e.message.length < 1_000,
    );
  });
});
