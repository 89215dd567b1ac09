import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import * as provider from "../../src/provider";
import { answer, answeringServer, errorAnswer, serviceAnswer } from "../helpers/fixedAnswer";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { configureProvider, providerConfig } from "../helpers/providerConfig";
import { endpointIdOf } from "../helpers/endpointId";

/*
 * ReversePrivateEndpointDeletion over real HTTP, against a server answering as each test says:
 * how long create's read, refresh and destroy may take, which answers count as the service
 * missing, what each entry point returns or throws for each answer and refuses to act on, and
 * that retries show in the output.
 */

type Props = Record<string, unknown>;
const ORG = randomUUID();
const SVC = randomUUID();
const ENDPOINT = "rpe-0a1b2c";
const props = (over: Props = {}): Props => ({
  organizationId: ORG,
  serviceId: SVC,
  reversePrivateEndpointId: ENDPOINT,
  ...over,
});

const service = serviceAnswer(SVC, { name: "db", state: "running" });
const rateLimited = (seconds: number) => (res: ServerResponse) =>
  answer(res, 429, { status: 429, error: "slow down" }, { "retry-after": String(seconds) });

describe("ReversePrivateEndpointDeletion: bounds and refusals over HTTP", function () {
  this.timeout(20_000);
  const api = answeringServer({ organizationId: ORG });
  const serve = api.serveInTurn;
  const previousScale = process.env.DBCLOUD_TIME_SCALE;

  afterEach(() => {
    if (previousScale === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = previousScale;
  });

  it("create's read gives up at the read timeout (scaled) when the server asks to wait past it", async () => {
    process.env.DBCLOUD_TIME_SCALE = "0.001"; // a read may take 120 s x 0.001 = 0.12 s
    await serve(rateLimited(1), (res) => answer(res, 200, service));
    await assert.rejects(provider.reversePrivateEndpointDeletionCreate(props()), /429/);
    assert.equal(api.server.requests.length, 1, "no retry after the read timeout");
  });

  it("a change of DBCLOUD_TIME_SCALE alone is used at once: the read's timeout follows it", async () => {
    process.env.DBCLOUD_TIME_SCALE = "0.5";
    await serve(
      (res) => answer(res, 200, service),
      rateLimited(1),
      (res) => answer(res, 200, service),
    );
    await provider.reversePrivateEndpointDeletionCreate(props()); // a read may take 60 s
    process.env.DBCLOUD_TIME_SCALE = "0.001"; // nothing else changes; now 0.12 s
    await assert.rejects(provider.reversePrivateEndpointDeletionCreate(props()), /429/);
    assert.equal(api.server.requests.length, 2, "no retry after the read timeout");
  });

  it("refresh gives up at the read timeout (scaled) when the server asks to wait past it", async () => {
    process.env.DBCLOUD_TIME_SCALE = "0.001";
    await serve(rateLimited(1), (res) => answer(res, 200, service));
    await assert.rejects(provider.reversePrivateEndpointDeletionRead(endpointIdOf(props()), props()), /429/);
    assert.equal(api.server.requests.length, 1, "no retry after the read timeout");
  });

  it("destroy gives up at timeoutSeconds when the server asks to wait past it, and the resource stays", async () => {
    await serve(rateLimited(2), (res) => answer(res, 204, undefined));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionDelete(
        endpointIdOf(props({ timeoutSeconds: 0.5 })),
        props({ timeoutSeconds: 0.5 }),
      ),
      /^ResourceOperationError: Deleting reverse private endpoint rpe-0a1b2c of service .* failed: .*429/,
    );
    assert.equal(api.server.requests.length, 1, "no retry after timeoutSeconds");
  });

  it("create takes only a 400 that says the service is not found for the service missing", async () => {
    await serve((res) => answer(res, 400, { status: 400, error: "Service not found" }));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionCreate(props()),
      new RegExp(
        `^ResourceOperationError: Service ${SVC} was not found in organization ${ORG}: check serviceId and organizationId`,
      ),
    );
    await serve((res) => answer(res, 400, { status: 400, error: "Invalid value for field name" }));
    const error: Error = await provider.reversePrivateEndpointDeletionCreate(props()).then(
      () => assert.fail("create succeeded"),
      (e: Error) => e,
    );
    assert.match(error.message, /Invalid value for field name/);
    assert.doesNotMatch(error.message, /was not found/);
  });

  it("create, refresh and destroy refuse state edited by hand, naming themselves, and send nothing", async () => {
    await serve((res) => answer(res, 500, { status: 500, error: "must not be called" }));
    const edited = props({ serviceId: "../other" });
    const refusal = (what: string) => (error: Error) => {
      assert.ok(
        error.message.startsWith(
          `ReversePrivateEndpointDeletion ${what}: refusing to act on invalid properties`,
        ),
        error.message,
      );
      assert.match(error.message, /- serviceId: serviceId must be a uuid/);
      return true;
    };
    await assert.rejects(provider.reversePrivateEndpointDeletionCreate(edited), refusal("create"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionRead(endpointIdOf(edited), edited),
      refusal("read"),
    );
    await assert.rejects(
      provider.reversePrivateEndpointDeletionDelete(endpointIdOf(edited), edited),
      refusal("delete"),
    );
    assert.equal(api.server.requests.length, 0);
  });

  it("a retried read shows in the progress output", async () => {
    process.env.DBCLOUD_TIME_SCALE = "0.01";
    await serve(
      (res) => answer(res, 503, { status: 503, error: "busy" }),
      (res) => answer(res, 200, service),
    );
    await provider.reversePrivateEndpointDeletionCreate(props());
    assert.equal(api.server.requests.length, 2);
    assert.ok(
      api.output.stdout.some((line) =>
        line.startsWith(`[dbcloud] GET /v1/organizations/${ORG}/services/${SVC}: `),
      ),
      api.output.stdout.join("\n"),
    );
  });

  it("a new configuration that differs in every setting is used at once (each stack's own API and key)", async () => {
    const first = await startHostileServer((_req, res) => answer(res, 200, service));
    let second: HostileServer | undefined;
    try {
      process.env.DBCLOUD_TIME_SCALE = "0.5";
      await configureProvider(
        providerConfig(
          { url: first.url, keyId: "key-a", keySecret: "secret-a" },
          { organizationId: ORG, rateLimit: "off" },
        ),
      );
      await provider.reversePrivateEndpointDeletionCreate(props());
      process.env.DBCLOUD_TIME_SCALE = "0.25";
      second = await startHostileServer((_req, res) => answer(res, 200, service));
      await configureProvider(
        providerConfig(
          { url: second.url, keyId: "key-b", keySecret: "secret-b" },
          { organizationId: randomUUID(), rateLimit: "100/1s" },
        ),
      );
      await provider.reversePrivateEndpointDeletionCreate(props());
      assert.equal(first.requests.length, 1);
      assert.equal(second.requests.length, 1, "the second configuration's API");
    } finally {
      await first.close();
      await second?.close();
    }
  });

  it("update changes only the timeout, with no API call", async () => {
    await serve((res) => answer(res, 500, { status: 500, error: "must not be called" }));
    assert.deepEqual(
      await provider.reversePrivateEndpointDeletionUpdate(
        endpointIdOf(props({ timeoutSeconds: 60 })),
        props(),
        props({ timeoutSeconds: 60 }),
      ),
      { outs: { ...props(), timeoutSeconds: 60 } },
    );
    assert.equal(api.server.requests.length, 0);
  });
});

describe("ReversePrivateEndpointDeletion, answer by answer", function () {
  this.timeout(20_000);
  const api = answeringServer({ organizationId: ORG });
  const serve = api.serve;
  const serviceWith = (fields: Props) => serviceAnswer(SVC, fields);
  const error = errorAnswer;

  const endpointProps = { organizationId: ORG, serviceId: SVC, reversePrivateEndpointId: "rpe-1" };

  it("endpoint create: a service not found fails naming both ids; a refused key names the settings", async () => {
    await serve(400, error(400, "Service not found"));
    await assert.rejects(provider.reversePrivateEndpointDeletionCreate(endpointProps), {
      message:
        `Service ${SVC} was not found in organization ${ORG}: check serviceId and organizationId. ` +
        `(400 Service not found (GET /v1/organizations/${ORG}/services/${SVC}, requestId r-err))`,
    });
    await serve(403, error(403, "forbidden"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionCreate(endpointProps),
      /^ResourceOperationError: The API key was refused while reading service .*dbcloud:apiKeyId .*\(403 forbidden/,
    );
    await serve(422, error(422, "odd"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionCreate(endpointProps),
      /^UnprocessableError: 422 odd/,
    );
  });

  it("endpoint create records the three ids and the default timeout", async () => {
    await serve(200, serviceWith({ state: "running" }));
    assert.deepEqual(await provider.reversePrivateEndpointDeletionCreate(endpointProps), {
      id: `${ORG}/${SVC}/rpe-1`,
      outs: { ...endpointProps, timeoutSeconds: 300 },
    });
  });

  it("endpoint read: unchanged while the service exists; a 400 about the endpoint is not the service gone", async () => {
    await serve(200, serviceWith({ state: "running" }));
    assert.deepEqual(
      await provider.reversePrivateEndpointDeletionRead(endpointIdOf(endpointProps), endpointProps),
      {
        id: endpointIdOf(endpointProps),
        props: { ...endpointProps, timeoutSeconds: 300 },
      },
    );
    await serve(400, error(400, "Endpoint not found"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionRead(endpointIdOf(endpointProps), endpointProps),
      /400 Endpoint not found/,
    );
  });

  it("endpoint delete fails with the server's answer as its cause", async () => {
    await serve(409, error(409, "busy"));
    const failure = await provider
      .reversePrivateEndpointDeletionDelete(endpointIdOf(endpointProps), endpointProps)
      .then(
        () => assert.fail("expected a failure"),
        (e: Error) => e,
      );
    assert.match(failure.message, /^Deleting reverse private endpoint rpe-1 of service .* failed: 409 busy/);
    assert.equal((failure.cause as { status?: number }).status, 409);
  });
});
