import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ResponseValidationError } from "../../src/api/errors";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../src/api/transport";
import * as provider from "../../src/provider";
import { failureOf, testClient } from "../helpers/apiClient";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * Any 2xx body, however deep, through every operation: a body nesting tens of thousands of levels
 * with a string escape (which makes the redaction walk the body) never overflows the stack. A GET
 * or PATCH answer that cannot be used is a ResponseValidationError naming method, path and request
 * id (a PATCH's counts as possibly applied, so the resource is recorded); a DELETE's 2xx is done
 * whatever its body.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;

/** A Service envelope with a field nesting `depth` arrays, holding a string with escapes. */
const deepBody = (depth: number, requestId = "r-deep") =>
  `{"status":200,"requestId":"${requestId}","result":{"id":"${SVC}","state":"running","extra":` +
  `${"[".repeat(depth)}"a\\u0041\\/b"${"]".repeat(depth)}}}`;

describe("a 2xx body of any depth, through every operation", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  const answering = (body: string, headers: Record<string, string> = {}) =>
    startHostileServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "x-request-id": "r-header", ...headers });
      res.end(body);
    });

  it("GET: 50,000 levels fail as a ResponseValidationError naming method, path and request id", async () => {
    server = await answering(deepBody(50_000));
    const error = await failureOf(testClient(server).getService(ORG, SVC));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.equal(
      error.message,
      `Unexpected response to GET ${PATH} (status 200, requestId r-deep): (body): nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
    assert.equal(error.possiblyApplied, false);
  });

  it("GET: a body nesting exactly the limit is read, its unknown field as sent", async () => {
    // The envelope and result are two levels: the field nests the rest.
    server = await answering(deepBody(MAX_JSON_DEPTH - 2));
    const { service, requestId } = await testClient(server).getService(ORG, SVC);
    assert.equal(requestId, "r-deep");
    assert.equal(service.state, "running");
    await server.close();
    server = await answering(deepBody(MAX_JSON_DEPTH - 1));
    assert.ok((await failureOf(testClient(server).getService(ORG, SVC))) instanceof ResponseValidationError);
  });

  it("PATCH: 50,000 levels fail as a ResponseValidationError, possibly applied, not retried", async () => {
    server = await answering(deepBody(50_000));
    const error = await failureOf(testClient(server).changeServiceState(ORG, SVC, "start"));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.match(
      error.message,
      new RegExp(`^Unexpected response to PATCH ${PATH}/state \\(status 200, requestId r-deep\\)`),
    );
    assert.equal(error.possiblyApplied, true);
    assert.equal(server.requests.length, 1);
  });

  for (const [what, body] of [
    ["50,000 levels with an escape", deepBody(50_000)],
    ["not JSON", "<html>deleted</html>"],
    ["JSON of any shape", '{"result":42}'],
    ["larger than the read cap", "[" + " ".repeat(MAX_BODY_BYTES + 10) + "]"],
    ["empty", ""],
  ]) {
    it(`DELETE: a 2xx whose body is ${what} is done`, async () => {
      server = await answering(body);
      const { requestId } = await testClient(server).deleteReversePrivateEndpoint(ORG, SVC, "rpe-1");
      assert.equal(requestId, what === "50,000 levels with an escape" ? "r-deep" : "r-header");
    });
  }
});

describe("a deep answer through the resources", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  const original = console.log;
  beforeEach(async () => {
    fixture = await startProviderFixture({ transitions: { starting: 300, stopping: 300 } });
    console.log = () => undefined;
  });
  afterEach(async () => {
    console.log = original;
    await fixture.close();
  });

  it("a PATCH the server applied, answered 50,000 levels deep: possibly applied, so create looks again and succeeds", async () => {
    const serviceId = fixture.seedService({ name: "deep", state: "stopped" });
    fixture.emulator.injectFault({ route: "changeState", malformed: "deep", times: Infinity });
    const props = { organizationId: fixture.organizationId, serviceId, state: "running", timeoutSeconds: 10 };
    const { outs } = await provider.serviceRunStateCreate(props);
    assert.equal(outs.observedState, "running");
    assert.equal(
      (outs.lastCommand as { command: string }).command,
      "start",
      "the unreadable answer's command is recorded",
    );
    const patches = fixture.emulator.requests.filter((r) => r.method === "PATCH");
    assert.equal(patches.length, 1, "the GETs showed it starting: no second command");
  });

  it("a PATCH answered 50,000 levels deep on a service that never gets there: the failure records the resource", async () => {
    const serviceId = fixture.seedService({ name: "deep", state: "stopped" });
    fixture.emulator.injectFault({ route: "changeState", malformed: "deep", times: Infinity });
    fixture.emulator.setTransitions({ starting: 60_000 });
    const props = { organizationId: fixture.organizationId, serviceId, state: "running", timeoutSeconds: 1 };
    const error = (await failureOf(provider.serviceRunStateCreate(props)).finally(() =>
      fixture.emulator.setTransitions({ starting: 300 }),
    )) as Error & { id?: string };
    assert.equal(error.id, serviceId, `recorded (an init failure carrying the id): ${error.message}`);
    assert.notEqual(fixture.emulator.service(serviceId)?.state, "stopped", "the server did apply it");
  });

  it("a GET answered 50,000 levels deep: read fails naming the method, path and request id", async () => {
    const serviceId = fixture.seedService({ name: "deep", state: "running" });
    fixture.emulator.injectFault({ route: "getService", malformed: "deep", times: Infinity });
    const props = { organizationId: fixture.organizationId, serviceId, state: "running" };
    const error = await failureOf(provider.serviceRunStateRead(serviceId, props));
    const requestId = fixture.emulator.requests.at(-1)?.requestId;
    assert.ok(requestId);
    assert.match(
      error.message,
      new RegExp(`GET /v1/organizations/${fixture.organizationId}/services/${serviceId}.*${requestId}`),
    );
    assert.doesNotMatch(error.message, /call stack/);
  });

  it("a DELETE that deleted the endpoint, answered 50,000 levels deep: destroy succeeds", async () => {
    const serviceId = fixture.seedService({ name: "deep", reversePrivateEndpointIds: ["rpe-deep"] });
    fixture.emulator.injectFault({ route: "deleteEndpoint", malformed: "deep" });
    const props = { organizationId: fixture.organizationId, serviceId, reversePrivateEndpointId: "rpe-deep" };
    await provider.reversePrivateEndpointDeletionDelete(
      `${fixture.organizationId}/${serviceId}/rpe-deep`,
      props,
    );
    assert.equal(fixture.emulator.hasEndpoint(serviceId, "rpe-deep"), false);
  });
});
