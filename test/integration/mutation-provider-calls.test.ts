import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { outputsOf } from "../../src/provider/serviceRunState";
import { configureProviderFor, startHostileServer, type HostileServer } from "../helpers/hostileServer";

/*
 * The provider's entry points that call the API, against a server answering one fixed way:
 * what read, create and update return or throw for each answer. Over real HTTP.
 */

type Props = Record<string, unknown>;
const ORG = randomUUID();
const SVC = randomUUID();

describe("provider entry points, answer by answer", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  const original = console.log;
  afterEach(async () => {
    console.log = original;
    await server?.close();
  });

  async function serve(status: number, body: unknown) {
    server = await startHostileServer((_req, res) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
    await configureProviderFor(server, { organizationId: ORG });
    console.log = () => undefined;
  }
  const service = (result: Props) => ({ status: 200, requestId: "r-1", result: { id: SVC, ...result } });
  const error = (status: number, message: string) => ({ status, error: message, requestId: "r-err" });

  it("ServiceRunState read fills the ids from the resource id and the configuration, and the defaults", async () => {
    await serve(
      200,
      service({ state: "idle", name: "db", databaseVersion: "24.3", endpoints: [{ host: "h" }] }),
    );
    const read = await provider.serviceRunStateRead(SVC, { state: "running" });
    assert.deepEqual(read, {
      id: SVC,
      props: {
        organizationId: ORG,
        serviceId: SVC,
        state: "running",
        timeoutSeconds: 1200,
        waitForState: true,
        onDestroy: "leave",
        transitionSeconds: { start: [], stop: [] },
        lastCommand: { command: "", sentAt: "", seen: false },
        observedState: "idle",
        serviceName: "db",
        databaseVersion: "24.3",
        endpoints: [{ protocol: "", host: "h", port: 0, username: null }],
      },
    });
    assert.equal(server!.requests[0].url, `/v1/organizations/${ORG}/services/${SVC}`);
  });

  it("ServiceRunState read: a 400 saying the service is not found drops it; one about the key fails", async () => {
    await serve(400, error(400, "Service not found"));
    assert.deepEqual(await provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }), {
      id: "",
      props: {},
    });
    await server!.close();
    await serve(400, error(400, "Invalid API key id"));
    await assert.rejects(
      provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }),
      /400 Invalid API key id/,
    );
    // Something else not found is no reason to drop the service from the stack.
    await server!.close();
    await serve(400, error(400, "Endpoint not found"));
    await assert.rejects(
      provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }),
      /400 Endpoint not found/,
    );
  });

  it("ServiceRunState read has a deadline: a server asking to wait past it fails the read at once", async () => {
    server = await startHostileServer((_req, res, { count }) => {
      if (count === 1) {
        res.writeHead(429, { "retry-after": "5" });
        return res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
      }
      res.end(JSON.stringify(service({ state: "running" })));
    });
    await configureProviderFor(server, { organizationId: ORG });
    console.log = () => undefined;
    // A read may take READ_TIMEOUT_SECONDS (120 s), scaled here to 1.2 s: less than the 5 s asked for.
    const scale = process.env.DBCLOUD_TIME_SCALE;
    process.env.DBCLOUD_TIME_SCALE = "0.01";
    try {
      await assert.rejects(provider.serviceRunStateRead(SVC, { serviceId: SVC, state: "running" }), /429/);
    } finally {
      if (scale === undefined) delete process.env.DBCLOUD_TIME_SCALE;
      else process.env.DBCLOUD_TIME_SCALE = scale;
    }
    assert.equal(server.requests.length, 1);
  });

  it("ServiceRunState read refuses invalid ids, naming itself, before any request", async () => {
    await serve(500, error(500, "must not be called"));
    await assert.rejects(
      provider.serviceRunStateRead(SVC, { serviceId: "../x", organizationId: ORG }),
      (e: Error) => e.message.startsWith("ServiceRunState read: refusing to act on invalid properties"),
    );
    assert.equal(server!.requests.length, 0);
  });

  it("ServiceRunState refresh right after a start, GET still showing stopped: keeps only a recorded state short of the target", async () => {
    await serve(200, service({ state: "stopped" }));
    const justSent = { command: "start", sentAt: new Date().toISOString(), seen: false };
    const refresh = async (observed: Props) =>
      (
        await provider.serviceRunStateRead(SVC, {
          serviceId: SVC,
          state: "running",
          lastCommand: justSent,
          ...observed,
        })
      ).props.observedState;
    assert.equal(await refresh({ observedState: "starting" }), "starting", "what the PATCH answered is kept");
    // A recorded state that satisfies the start would hide the stopped service from the next
    // `pulumi up`; no recorded state at all is nothing to keep.
    assert.equal(await refresh({ observedState: "running" }), "stopped");
    assert.equal(await refresh({ observedState: "" }), "stopped");
    assert.equal(await refresh({}), "stopped");
    // Past the grace period (30 s), or once a GET has shown the start, stopped is taken at its word.
    const minuteAgo = { ...justSent, sentAt: new Date(Date.now() - 60_000).toISOString() };
    assert.equal(await refresh({ observedState: "starting", lastCommand: minuteAgo }), "stopped");
    assert.equal(
      await refresh({ observedState: "starting", lastCommand: { ...justSent, seen: true } }),
      "stopped",
    );
  });

  it("ServiceRunState refresh that shows the start marks it seen, and keeps what it shows", async () => {
    await serve(200, service({ state: "running" }));
    const justSent = { command: "start", sentAt: new Date().toISOString(), seen: false };
    const { props } = await provider.serviceRunStateRead(SVC, {
      serviceId: SVC,
      state: "running",
      observedState: "starting",
      lastCommand: justSent,
    });
    assert.equal(props.observedState, "running");
    assert.deepEqual(props.lastCommand, { ...justSent, seen: true });
  });

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
      transitionSeconds: { start: [], stop: [] },
      lastCommand,
      observedState: "stopped",
      serviceName: "",
      databaseVersion: "",
      endpoints: [],
    });
    assert.equal(server!.requests.length, 0);
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
      server!.requests.map((r) => r.method),
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
      server!.requests.map((r) => r.method),
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
    assert.equal(server!.requests.length, 0);
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
      transitionSeconds: { start: [], stop: [] },
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

  const endpointProps = { organizationId: ORG, serviceId: SVC, reversePrivateEndpointId: "rpe-1" };

  it("endpoint create: a service not found fails naming both ids; a refused key names the settings", async () => {
    await serve(400, error(400, "Service not found"));
    await assert.rejects(provider.reversePrivateEndpointDeletionCreate(endpointProps), {
      message:
        `Service ${SVC} was not found in organization ${ORG}: check serviceId and organizationId. ` +
        `(400 Service not found (GET /v1/organizations/${ORG}/services/${SVC}, requestId r-err))`,
    });
    await server!.close();
    await serve(403, error(403, "forbidden"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionCreate(endpointProps),
      /^Error: The API key was refused while reading service .*dbcloud:apiKeyId .*\(403 forbidden/,
    );
    await server!.close();
    await serve(422, error(422, "odd"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionCreate(endpointProps),
      /^UnprocessableError: 422 odd/,
    );
  });

  it("endpoint create records the three ids and the default timeout", async () => {
    await serve(200, service({ state: "running" }));
    assert.deepEqual(await provider.reversePrivateEndpointDeletionCreate(endpointProps), {
      id: `${ORG}/${SVC}/rpe-1`,
      outs: { ...endpointProps, timeoutSeconds: 300 },
    });
  });

  it("endpoint read: unchanged while the service exists; a 400 about the endpoint is not the service gone", async () => {
    await serve(200, service({ state: "running" }));
    assert.deepEqual(await provider.reversePrivateEndpointDeletionRead("id-1", endpointProps), {
      id: "id-1",
      props: { ...endpointProps, timeoutSeconds: 300 },
    });
    await server!.close();
    await serve(400, error(400, "Endpoint not found"));
    await assert.rejects(
      provider.reversePrivateEndpointDeletionRead("id-1", endpointProps),
      /400 Endpoint not found/,
    );
  });

  it("endpoint delete fails with the server's answer as its cause", async () => {
    await serve(409, error(409, "busy"));
    const failure = await provider.reversePrivateEndpointDeletionDelete("x", endpointProps).then(
      () => assert.fail("expected a failure"),
      (e: Error) => e,
    );
    assert.match(failure.message, /^Deleting reverse private endpoint rpe-1 of service .* failed: 409 busy/);
    assert.equal((failure.cause as { status?: number }).status, 409);
  });
});
