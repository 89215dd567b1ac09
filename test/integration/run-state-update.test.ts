import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { outputsOf } from "../../src/provider/serviceRunStateInputs";
import { answeringServer, errorAnswer, serviceAnswer } from "../helpers/fixedAnswer";

/*
 * ServiceRunState create and update against a server answering one fixed way, over real HTTP:
 * when they call the API, what they refuse, and outputs that never hold undefined.
 */

type Props = Record<string, unknown>;
const ORG = randomUUID();
const SVC = randomUUID();

describe("ServiceRunState create and update, answer by answer", function () {
  this.timeout(20_000);
  const api = answeringServer({ organizationId: ORG });
  const serve = api.serve;
  const service = (fields: Props) => serviceAnswer(SVC, fields);
  const error = errorAnswer;

  it("ServiceRunState update with nothing to converge keeps what was observed, filling absent details", async () => {
    await serve(500, error(500, "must not be called"));
    const lastCommand = { command: "stop", sentAt: new Date(Date.now() - 5_000).toISOString(), seen: true };
    const olds = {
      organizationId: ORG,
      serviceId: SVC,
      state: "stopped",
      observedState: "stopped",
      lastCommand,
    };
    const { outs } = await provider.serviceRunStateUpdate(SVC, olds, {
      organizationId: ORG,
      serviceId: SVC,
      state: "stopped",
      timeoutSeconds: 30,
    });
    assert.deepEqual(outs, {
      organizationId: ORG,
      serviceId: SVC,
      state: "stopped",
      timeoutSeconds: 30,
      waitForState: true,
      onDestroy: "leave",
      lastCommand,
      observedState: "stopped",
      serviceName: "",
      databaseVersion: "",
      endpoints: [],
    });
    assert.equal(api.server.requests.length, 0);
  });

  it("ServiceRunState update with nothing to converge keeps endpoints, and drops what a hand-edit made no endpoint", async () => {
    await serve(500, error(500, "must not be called"));
    const olds = { organizationId: ORG, serviceId: SVC, state: "running", observedState: "running" };
    const news = { organizationId: ORG, serviceId: SVC, state: "running", timeoutSeconds: 30 };
    const endpoint = { protocol: "https", host: "h", port: 8443, username: null };
    const kept = await provider.serviceRunStateUpdate(SVC, { ...olds, endpoints: [endpoint] }, news);
    assert.deepEqual(kept.outs.endpoints, [endpoint]);
    const edited = await provider.serviceRunStateUpdate(SVC, { ...olds, endpoints: "edited" }, news);
    assert.deepEqual(edited.outs.endpoints, []);
    const mixed = await provider.serviceRunStateUpdate(
      SVC,
      { ...olds, endpoints: [null, 3, { port: 1 }] },
      news,
    );
    assert.deepEqual(mixed.outs.endpoints, [{ protocol: "", host: "", port: 1, username: null }]);
    assert.equal(api.server.requests.length, 0);
  });

  it("ServiceRunState update with a new desired state converges (it calls the API)", async () => {
    await serve(200, service({ state: "running" }));
    const olds = { organizationId: ORG, serviceId: SVC, state: "stopped", observedState: "stopped" };
    const { outs } = await provider.serviceRunStateUpdate(SVC, olds, {
      organizationId: ORG,
      serviceId: SVC,
      state: "running",
    });
    assert.equal(outs.observedState, "running");
    assert.deepEqual(
      api.server.requests.map((r) => r.method),
      ["GET"],
    );
  });

  it("ServiceRunState update to the state the service was last seen in still looks: the record may be old", async () => {
    await serve(200, service({ state: "stopped", name: "db" }));
    // Stopped by hand and seen so by a refresh; the program now asks for stopped.
    const olds = { organizationId: ORG, serviceId: SVC, state: "running", observedState: "stopped" };
    const { outs } = await provider.serviceRunStateUpdate(SVC, olds, {
      organizationId: ORG,
      serviceId: SVC,
      state: "stopped",
    });
    assert.equal(outs.serviceName, "db");
    assert.deepEqual(
      api.server.requests.map((r) => r.method),
      ["GET"],
    );
  });

  it("create and update refuse invalid inputs, naming the entry point, before any request", async () => {
    await serve(500, error(500, "must not be called"));
    const bad = { organizationId: ORG, serviceId: SVC, state: "Running" };
    await assert.rejects(provider.serviceRunStateCreate(bad), (e: Error) =>
      e.message.startsWith("ServiceRunState create: refusing to act on invalid properties"),
    );
    await assert.rejects(provider.serviceRunStateUpdate(SVC, bad, bad), (e: Error) =>
      e.message.startsWith("ServiceRunState update: refusing to act on invalid properties"),
    );
    assert.equal(api.server.requests.length, 0);
  });

  it("a failure before any command is not recorded: a plain error without the resource", async () => {
    await serve(200, service({ state: "terminated" }));
    const failure = (await provider
      .serviceRunStateCreate({ organizationId: ORG, serviceId: SVC, state: "running" })
      .then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e,
      )) as Error & { id?: string };
    assert.equal(failure.id, undefined);
    assert.match(failure.message, /terminated: it cannot be made running/);
  });

  it("outputs never hold undefined: absent details become empty values", () => {
    const inputs = {
      organizationId: ORG,
      serviceId: SVC,
      state: "running" as const,
      timeoutSeconds: 1,
      waitForState: false,
      onDestroy: "leave" as const,
    };
    assert.deepEqual(outputsOf(inputs, {}), {
      ...inputs,
      observedState: "",
      serviceName: "",
      databaseVersion: "",
      endpoints: [],
      lastCommand: { command: "", sentAt: "", seen: false },
    });
    assert.deepEqual(
      outputsOf(inputs, { endpoints: [{ protocol: "https", host: "h", port: 8443, username: "u" }] })
        .endpoints,
      [{ protocol: "https", host: "h", port: 8443, username: "u" }],
    );
    assert.deepEqual(outputsOf(inputs, { endpoints: [{ protocol: "https", port: 8443 }] }).endpoints, [
      { protocol: "https", host: "", port: 8443, username: null },
    ]);
  });
});
