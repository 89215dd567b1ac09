import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { InvalidInputError } from "../../src/api/errors";
import { checkedRequestUrl } from "../../src/api/guards";
import * as provider from "../../src/provider";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";
import { answeringServer } from "../helpers/fixedAnswer";
import { endpointIdOf } from "../helpers/endpointId";

/*
 * A request goes only where it was meant to go; state that is old or edited by hand never
 * becomes a command; what counts as already gone on destroy (lost answers: lost-answers.test.ts).
 */

type Props = Record<string, unknown>;
const ENDPOINT = "rpe-0a1b2c";

describe("a request goes only where it was meant to go", function () {
  this.timeout(20_000);
  let fixture: ProviderFixture;
  let serviceId: string;
  const original = console.log;

  beforeEach(async () => {
    fixture = await startProviderFixture();
    serviceId = fixture.seedService({
      name: "aimed",
      state: "running",
      reversePrivateEndpointIds: [ENDPOINT],
    });
    console.log = () => undefined;
  });
  afterEach(async () => {
    console.log = original;
    await fixture.close();
  });

  const endpointProps = (over: Props = {}): Props => ({
    organizationId: fixture.organizationId,
    serviceId,
    reversePrivateEndpointId: ENDPOINT,
    ...over,
  });

  for (const id of ["..", ".", "...", "", "%2e%2e", "a/b", "..%2f", "a\\b"]) {
    it(`endpoint id ${JSON.stringify(id)}: refused by check and by the client, nothing sent`, async () => {
      const { failures } = await provider.reversePrivateEndpointDeletionCheck(
        {},
        endpointProps({ reversePrivateEndpointId: id }),
      );
      assert.deepEqual(
        failures.map((f) => f.property),
        ["reversePrivateEndpointId"],
      );
      const client = new ApiClient({
        apiUrl: fixture.emulator.url,
        keyId: fixture.emulator.keyId,
        keySecret: fixture.emulator.keySecret,
        rateLimit: false,
      });
      await assert.rejects(
        client.deleteReversePrivateEndpoint(fixture.organizationId, serviceId, id),
        InvalidInputError,
      );
      await assert.rejects(
        provider.reversePrivateEndpointDeletionDelete(
          endpointIdOf(endpointProps({ reversePrivateEndpointId: id })),
          endpointProps({ reversePrivateEndpointId: id }),
        ),
        InvalidInputError,
      );
      assert.equal(fixture.emulator.requests.length, 0);
      assert.equal(
        fixture.emulator.service(serviceId)?.state,
        "running",
        "the service itself was not touched",
      );
    });
  }

  it("the last line refuses a path that normalisation would change, or that leaves its template", () => {
    const template = "/v1/organizations/{o}/services/{s}/pipesReversePrivateEndpoints/{e}";
    const ok = "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/c";
    assert.equal(
      checkedRequestUrl("https://api.example.com/base", template, ok),
      `https://api.example.com/base${ok}`,
    );
    for (const path of [
      "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/..",
      "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/%2e%2e",
      "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/c?x=1",
      "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/c#f",
      "/v1/organizations/a/services/b/pipesReversePrivateEndpoints/c/d",
      "/v1/organizations/a/services/b",
    ]) {
      assert.throws(
        () => checkedRequestUrl("https://api.example.com/base", template, path),
        /Refusing to send/,
        path,
      );
    }
  });

  it('a hand-edited desired state "Running" never becomes a command', async () => {
    const props = {
      organizationId: fixture.organizationId,
      serviceId,
      timeoutSeconds: 5,
      waitForState: true,
    };
    await assert.rejects(
      provider.serviceRunStateUpdate(
        serviceId,
        { ...props, state: "stopped", observedState: "stopped" },
        { ...props, state: "Running" },
      ),
      /refusing to act on invalid properties[\s\S]*state/,
    );
    await assert.rejects(provider.serviceRunStateCreate({ ...props, state: "Running" }), /state/);
    await assert.rejects(
      provider.serviceRunStateDiff(serviceId, props, { ...props, state: "Running" }),
      /state/,
    );
    assert.equal(fixture.emulator.requests.length, 0, "no request at all");
  });

  for (const timeoutSeconds of [Number.NaN, 0, -1, Infinity, "60", 10 ** 9]) {
    it(`a timeout of ${String(timeoutSeconds)} never becomes a deadline`, async () => {
      const props = { organizationId: fixture.organizationId, serviceId, state: "stopped", timeoutSeconds };
      await assert.rejects(provider.serviceRunStateCreate(props), /timeoutSeconds/);
      await assert.rejects(
        provider.reversePrivateEndpointDeletionDelete(
          endpointIdOf(endpointProps({ timeoutSeconds })),
          endpointProps({ timeoutSeconds }),
        ),
        /timeoutSeconds/,
      );
      assert.equal(fixture.emulator.requests.length, 0);
    });
  }

  it("read re-validates the ids it acts on", async () => {
    await assert.rejects(
      provider.serviceRunStateRead("x", { organizationId: fixture.organizationId, serviceId: "../x" }),
      /serviceId/,
    );
    assert.equal(fixture.emulator.requests.length, 0);
  });
});

describe("what counts as already gone on destroy", function () {
  this.timeout(20_000);
  const api = answeringServer();

  async function deleteAgainst(status: number, body: string): Promise<Error | undefined> {
    await api.serveWith((_req, res) => {
      res.statusCode = status;
      res.end(body);
    });
    const props = {
      organizationId: randomUUID(),
      serviceId: randomUUID(),
      reversePrivateEndpointId: ENDPOINT,
    };
    return provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props), props).then(
      () => undefined,
      (error: Error) => error,
    );
  }

  it("204 with no body is done", async () => {
    assert.equal(await deleteAgainst(204, ""), undefined);
  });
  it("202 with a body that is not the envelope is done", async () => {
    assert.equal(await deleteAgainst(202, "accepted"), undefined);
  });
  for (const status of [400, 404]) {
    for (const message of ["Endpoint not found", "Service not found", "Invalid reversePrivateEndpointId"]) {
      it(`${status} ${JSON.stringify(message)} is already gone`, async () => {
        assert.equal(
          await deleteAgainst(status, JSON.stringify({ status, error: message, requestId: "r-9" })),
          undefined,
        );
      });
    }
    for (const message of [
      "Invalid API key id",
      "Invalid organization id",
      "Organization not found",
      "Bad request",
      "Service not found for this API key",
    ]) {
      it(`${status} ${JSON.stringify(message)} fails destroy with the message and request id`, async () => {
        const error = await deleteAgainst(
          status,
          JSON.stringify({ status, error: message, requestId: "r-9" }),
        );
        assert.ok(error, "destroy must fail: the endpoint may still exist");
        assert.match(error.message, new RegExp(`${status} ${message}.*requestId r-9`));
      });
    }
  }
  it("404 with no body is already gone: the path asked for", async () => {
    assert.equal(await deleteAgainst(404, ""), undefined);
  });
  it("400 with no body fails destroy", async () => {
    assert.ok(await deleteAgainst(400, ""));
  });
});
