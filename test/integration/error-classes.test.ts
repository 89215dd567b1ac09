import assert from "node:assert/strict";
import { ApiClient } from "../../src/api/client";
import { DbcloudError, NotFoundError, PermissionDeniedError } from "../../src/api/errors";
import * as provider from "../../src/provider";
import { captureConsole, type CapturedConsole } from "../helpers/captureConsole";
import { endpointIdOf } from "../helpers/endpointId";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * Every error the package's code throws is a DbcloudError, named for what happened: the client's
 * argument checks, the providers' input and state checks, a converge that cannot go on, a resource
 * recorded on failure, and the failures of an endpoint's create and delete and of a stop on
 * destroy (with the error beneath as their cause). Against the emulator over real HTTP.
 */

type Props = Record<string, unknown>;

/** The error `work` fails with, checked to be a DbcloudError named `name`. */
async function failure(work: Promise<unknown>, name: string): Promise<DbcloudError> {
  const error = await work.then(
    () => assert.fail(`expected a ${name}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof DbcloudError, `${String(error)} is a DbcloudError`);
  assert.equal(error.name, name, error.message);
  return error;
}

describe("every error thrown is a DbcloudError", function () {
  let fixture: ProviderFixture;
  let output: CapturedConsole;

  beforeEach(async () => {
    fixture = await startProviderFixture({ transitions: { starting: 60_000, stopping: 150 } });
    output = captureConsole();
  });
  afterEach(async () => {
    output?.restore();
    await fixture?.close();
  });

  async function checked(news: Props): Promise<Props> {
    const { inputs, failures } = await provider.serviceRunStateCheck({}, { __provider: "p", ...news });
    assert.deepEqual(failures, []);
    return inputs;
  }

  it("the client's argument checks: InvalidInputError, nothing sent", async () => {
    const { emulator, organizationId } = fixture;
    const client = new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
    });
    const serviceId = fixture.seedService();
    await failure(client.getService(organizationId, "not-a-uuid"), "InvalidInputError");
    await failure(
      client.changeServiceState(organizationId, serviceId, "restart" as "start"),
      "InvalidInputError",
    );
    await failure(client.deleteReversePrivateEndpoint(organizationId, serviceId, ".."), "InvalidInputError");
    assert.deepEqual(emulator.requests, []);
  });

  it("the providers' checks of inputs and state: InvalidInputError, nothing sent", async () => {
    const serviceId = fixture.seedService({ state: "running" });
    const inputs = await checked({ serviceId, state: "running" });
    await failure(provider.serviceRunStateCreate({ ...inputs, serviceId: "nope" }), "InvalidInputError");
    await failure(provider.serviceRunStateUpdate(fixture.seedService(), inputs, inputs), "InvalidInputError");
    await failure(
      provider.serviceRunStateRead(serviceId, { ...inputs, organizationId: "bad" }),
      "InvalidInputError",
    );
    assert.deepEqual(fixture.emulator.requests, []);
  });

  it("a converge that meets a state no command leaves: ConvergeError", async () => {
    const serviceId = fixture.seedService({ state: "failed" });
    const error = await failure(
      provider.serviceRunStateCreate(await checked({ serviceId, state: "running" })),
      "ConvergeError",
    );
    assert.match(error.message, /failed/);
  });

  it("a create that times out after its command was accepted: recorded, a ResourceInitError", async () => {
    const serviceId = fixture.seedService({ state: "stopped" });
    const inputs = await checked({ serviceId, state: "running", timeoutSeconds: 0.5 });
    const error = (await failure(
      provider.serviceRunStateCreate(inputs),
      "ResourceInitError",
    )) as DbcloudError & {
      id?: string;
      properties?: Props;
    };
    assert.equal(error.id, serviceId);
    assert.equal(error.properties?.observedState, "starting");
  });

  it("an endpoint's create of a missing service, and its refused delete: ResourceOperationError with the cause", async () => {
    const { organizationId } = fixture;
    const missing = { organizationId, serviceId: "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d" };
    const props = { ...missing, reversePrivateEndpointId: "rpe-1", timeoutSeconds: 5 };
    const created = await failure(
      provider.reversePrivateEndpointDeletionCreate(props),
      "ResourceOperationError",
    );
    assert.ok(created.cause instanceof NotFoundError);

    const serviceId = fixture.seedService({ reversePrivateEndpointIds: ["rpe-2"] });
    const endpoint = { organizationId, serviceId, reversePrivateEndpointId: "rpe-2", timeoutSeconds: 5 };
    fixture.emulator.injectFault({ route: "deleteEndpoint", status: 403, times: 1 });
    const deleted = await failure(
      provider.reversePrivateEndpointDeletionDelete(endpointIdOf(endpoint), endpoint),
      "ResourceOperationError",
    );
    assert.ok(deleted.cause instanceof PermissionDeniedError);
  });

  it("a stop on destroy that fails: ResourceOperationError, the converge's error as its cause", async () => {
    const serviceId = fixture.seedService({ state: "running" });
    const outs = (
      await provider.serviceRunStateCreate(await checked({ serviceId, state: "running", onDestroy: "stop" }))
    ).outs as unknown as Props;
    fixture.emulator.injectFault({ route: "changeState", status: 403, times: 1 });
    const error = await failure(provider.serviceRunStateDelete(serviceId, outs), "ResourceOperationError");
    assert.ok(error.cause instanceof DbcloudError);
    assert.equal((error.cause as Error).name, "ConvergeError");
  });
});
