import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { configureProvider, providerConfig } from "../helpers/providerConfig";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";
import { endpointIdOf } from "../helpers/endpointId";
import { captureConsole } from "../helpers/captureConsole";

/*
 * ReversePrivateEndpointDeletion's provider functions against the emulator over real HTTP.
 * Retries are scaled down (DBCLOUD_TIME_SCALE) so a retried 503 costs milliseconds.
 */

type Props = Record<string, unknown>;
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const ENDPOINT = "rpe-0a1b2c";

describe("ReversePrivateEndpointDeletion against the emulator", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  let serviceId: string;
  let stdout: string[];
  const original = console.log;

  beforeEach(async () => {
    fixture = await startProviderFixture();
    serviceId = fixture.seedService({ name: "pipes", reversePrivateEndpointIds: [ENDPOINT] });
    stdout = [];
    console.log = (line: string) => stdout.push(String(line));
  });

  afterEach(async () => {
    console.log = original;
    await fixture.close();
  });

  const props = (over: Props = {}): Props => ({
    organizationId: fixture.organizationId,
    serviceId,
    reversePrivateEndpointId: ENDPOINT,
    ...over,
  });
  const log = () => fixture.emulator.requests.map((r) => `${r.method} ${r.status}`);

  describe("check", () => {
    it("reports each bad id with its property", async () => {
      for (const bad of ["", "a/b", "has space", "x".repeat(200)]) {
        const { failures } = await provider.reversePrivateEndpointDeletionCheck(
          {},
          props({ reversePrivateEndpointId: bad }),
        );
        assert.deepEqual(
          failures.map((f) => f.property),
          ["reversePrivateEndpointId"],
          JSON.stringify(bad),
        );
      }
      const { failures } = await provider.reversePrivateEndpointDeletionCheck(
        {},
        props({ organizationId: "org", serviceId: 7 }),
      );
      assert.deepEqual(failures.map((f) => f.property).sort(), ["organizationId", "serviceId"]);
      assert.equal(fixture.emulator.requests.length, 0);
    });

    it("defaults organizationId from the configuration and lets unknowns pass", async () => {
      const { inputs, failures } = await provider.reversePrivateEndpointDeletionCheck(
        {},
        { serviceId, reversePrivateEndpointId: ENDPOINT },
      );
      assert.deepEqual(failures, []);
      assert.equal(inputs.organizationId, fixture.organizationId);
      const unknown = await provider.reversePrivateEndpointDeletionCheck(
        {},
        { serviceId: UNKNOWN, reversePrivateEndpointId: UNKNOWN },
      );
      assert.deepEqual(unknown.failures, []);
    });
  });

  describe("create", () => {
    it("GETs the service only, deletes nothing, and records the three ids", async () => {
      const { id, outs } = await provider.reversePrivateEndpointDeletionCreate(props());
      assert.equal(id, `${fixture.organizationId}/${serviceId}/${ENDPOINT}`);
      assert.deepEqual(outs, { ...props(), timeoutSeconds: 300 }, "the ids, and the default delete timeout");
      assert.deepEqual(log(), ["GET 200"]);
      assert.ok(fixture.emulator.hasEndpoint(serviceId, ENDPOINT));
    });

    it("fails clearly when the service does not exist", async () => {
      const missing = randomUUID();
      await assert.rejects(
        provider.reversePrivateEndpointDeletionCreate(props({ serviceId: missing })),
        new RegExp(
          `Service ${missing} was not found in organization ${fixture.organizationId}: check serviceId and organizationId`,
        ),
      );
    });

    it("fails clearly when the key is refused, naming the settings and never the secret", async () => {
      const secret = "definitely-wrong-secret-42";
      const config = providerConfig(fixture.emulator, {
        organizationId: fixture.organizationId,
        rateLimit: "off",
      });
      await configureProvider({ ...config, "dbcloud:apiKeySecret": secret });
      try {
        const error = await provider.reversePrivateEndpointDeletionCreate(props()).then(
          () => assert.fail("should fail"),
          (e: Error) => e,
        );
        assert.match(
          error.message,
          /dbcloud:apiKeyId \/ DBCLOUD_API_KEY_ID and dbcloud:apiKeySecret \/ DBCLOUD_API_KEY_SECRET/,
        );
        assert.match(error.message, /401/);
        assert.ok(!`${error.message}${error.stack}`.includes(secret));
      } finally {
        await configureProvider(config);
      }
    });
  });

  describe("diff", () => {
    it("replaces on any id change, naming the property", async () => {
      for (const key of ["organizationId", "serviceId", "reversePrivateEndpointId"]) {
        const value = key === "reversePrivateEndpointId" ? "rpe-other" : randomUUID();
        const d = await provider.reversePrivateEndpointDeletionDiff("x", props(), props({ [key]: value }));
        assert.equal(d.changes, true);
        assert.deepEqual(d.replaces, [key]);
      }
    });

    it("reports no change when nothing changed, and a replacement for unknowns", async () => {
      assert.equal((await provider.reversePrivateEndpointDeletionDiff("x", props(), props())).changes, false);
      const d = await provider.reversePrivateEndpointDeletionDiff(
        "x",
        props(),
        props({ reversePrivateEndpointId: UNKNOWN }),
      );
      assert.deepEqual(d.replaces, ["reversePrivateEndpointId"]);
    });
  });

  describe("delete", () => {
    it("deletes an existing endpoint with exactly one DELETE", async () => {
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE 200"]);
      assert.equal(fixture.emulator.hasEndpoint(serviceId, ENDPOINT), false);
      assert.ok(stdout.some((l) => /deleted reverse private endpoint rpe-0a1b2c .*requestId/.test(l)));
    });

    it("twice: the second 404 counts as done, with a line saying so", async () => {
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE 200", "DELETE 404"]);
      assert.ok(stdout.some((l) => /was already gone; nothing to delete/.test(l)));
    });

    it("an endpoint deleted out of band, or a service deleted out of band, is done", async () => {
      const other = fixture.seedService({ reversePrivateEndpointIds: [] });
      await provider.reversePrivateEndpointDeletionDelete(
        endpointIdOf(props({ serviceId: other })),
        props({ serviceId: other }),
      );
      fixture.emulator.removeService(serviceId);
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE 404", "DELETE 404"]);
    });

    it("503 then success: retried by the client", async () => {
      fixture.emulator.injectFault({ route: "deleteEndpoint", status: 503, times: 1 });
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE 503", "DELETE 200"]);
      assert.equal(fixture.emulator.hasEndpoint(serviceId, ENDPOINT), false);
    });

    it("a DELETE done on the server whose answer was lost: retried, and the 404 counts as success", async () => {
      fixture.emulator.injectFault({ route: "deleteEndpoint", drop: "after", times: 1 });
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE dropped", "DELETE 404"]);
      assert.equal(fixture.emulator.hasEndpoint(serviceId, ENDPOINT), false);
    });

    it("a connection dropped before the server acted: retried and deleted", async () => {
      fixture.emulator.injectFault({ route: "deleteEndpoint", drop: "before", times: 1 });
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE dropped", "DELETE 200"]);
    });

    it("429 with Retry-After: waits, then deletes", async () => {
      fixture.emulator.injectFault({ route: "deleteEndpoint", status: 429, retryAfterSeconds: 1, times: 1 });
      await provider.reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props());
      assert.deepEqual(log(), ["DELETE 429", "DELETE 200"]);
    });

    for (const status of [400, 401, 403, 409]) {
      it(`${status}: fails with the server's message and the request id, not retried`, async () => {
        fixture.emulator.injectFault({ route: "deleteEndpoint", status, times: 1 });
        const error = await provider
          .reversePrivateEndpointDeletionDelete(endpointIdOf(props()), props())
          .then(
            () => assert.fail("should fail"),
            (e: Error) => e,
          );
        assert.match(
          error.message,
          new RegExp(`Deleting reverse private endpoint ${ENDPOINT} .* failed: ${status} \\w+`),
        );
        assert.match(error.message, /requestId [0-9a-f-]{36}/);
        assert.deepEqual(log(), [`DELETE ${status}`]);
        assert.ok(fixture.emulator.hasEndpoint(serviceId, ENDPOINT));
      });
    }
  });

  describe("read", () => {
    it("leaves the outputs unchanged while the service exists", async () => {
      const read = await provider.reversePrivateEndpointDeletionRead(endpointIdOf(props()), props());
      assert.equal(read.id, endpointIdOf(props()));
      assert.deepEqual(read.props, { ...props(), timeoutSeconds: 300 });
    });

    it("drops the resource when the service is gone, and says why", async () => {
      fixture.emulator.removeService(serviceId);
      const output = captureConsole();
      const read = await provider
        .reversePrivateEndpointDeletionRead(endpointIdOf(props()), props())
        .finally(() => output.restore());
      assert.equal(read.id, "");
      assert.ok(
        output.stdout.some((line) => line.includes(`service ${serviceId} no longer exists`)),
        output.stdout.join("\n"),
      );
    });
  });
});
