import assert from "node:assert/strict";
import * as provider from "../../src/provider";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * A lost answer is not a lost service: a PATCH whose answer is lost or unreadable may have been
 * applied, so the converge keeps looking with GETs until its deadline, never sends more than 3
 * PATCHes, and a failure records what the last GET showed. Against the emulator over HTTP.
 */

type Props = Record<string, unknown>;

describe("nothing lost when an answer is lost", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  let serviceId: string;
  const original = console.log;
  beforeEach(async () => {
    fixture = await startProviderFixture({ transitions: { starting: 300, stopping: 300 } });
    serviceId = fixture.seedService({ name: "lossy", state: "stopped" });
    console.log = () => undefined;
  });
  afterEach(async () => {
    console.log = original;
    await fixture.close();
  });

  const create = (timeoutSeconds = 5) =>
    provider.serviceRunStateCreate({
      organizationId: fixture.organizationId,
      serviceId,
      state: "running",
      timeoutSeconds,
      waitForState: true,
    });
  const patches = () => fixture.emulator.requests.filter((r) => r.method === "PATCH");

  const lostAnswers = {
    "dropped after the server applied it": { drop: "after" },
    "a 2xx whose body cannot be read": { malformed: "not-json" },
  } as const;
  for (const [what, fault] of Object.entries(lostAnswers)) {
    it(`every PATCH answer ${what}, GETs working: it keeps looking, and succeeds once the service is there`, async () => {
      fixture.emulator.injectFault({ route: "changeState", ...fault, times: Infinity });
      const { outs } = await create();
      assert.equal(outs.observedState, "running");
      assert.equal(outs.lastCommand.command, "start");
      assert.ok(patches().length >= 1 && patches().length <= 3, `${patches().length} PATCHes`);
      const last = fixture.emulator.requests[fixture.emulator.requests.length - 1];
      assert.equal(last.method, "GET", "the outcome is what a GET showed");
    });
  }

  it("every PATCH answer lost and the service not there by the deadline: the failure records what the last GET showed, saying the command may have been applied", async () => {
    fixture.emulator.setTransitions({ starting: 60_000 });
    fixture.emulator.injectFault({ route: "changeState", drop: "after", times: Infinity });
    const error = (await create(1).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { id?: string; properties?: Props };
    assert.ok(error, "create failed");
    assert.equal(error.id, serviceId, `recorded (init failure carrying the id): ${error.message}`);
    const gets = fixture.emulator.requests.filter((r) => r.method === "GET");
    assert.equal(gets[gets.length - 1].stateShown, "starting");
    assert.equal(error.properties?.observedState, "starting", "what the last GET showed, not stopped");
    assert.match(error.message, /Timed out .* after 3 start command\(s\) whose answers were lost \(last: /);
    // No 2xx came back: the start may have been applied, but was never answered as accepted.
    assert.match(error.message, / The command may have been applied: the resource is recorded /);
    assert.doesNotMatch(error.message, /accepted/);
    assert.ok(patches().length <= 3, `${patches().length} PATCHes`);
  });

  it("PATCHes stay at 3 on the wire even when the server ignores every command", async () => {
    fixture.emulator.injectFault({ route: "changeState", ignoreCommand: true, times: Infinity });
    const error = (await provider
      .serviceRunStateCreate({
        organizationId: fixture.organizationId,
        serviceId,
        state: "running",
        timeoutSeconds: 3,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as Error & { id?: string };
    assert.ok(error, "it never got there");
    assert.ok(patches().length <= 3, `${patches().length} PATCHes`);
  });
});
