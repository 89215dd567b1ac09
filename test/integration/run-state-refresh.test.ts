import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { answeringServer, errorAnswer, serviceAnswer } from "../helpers/fixedAnswer";

/*
 * ServiceRunState read (`pulumi refresh`) against a server answering one fixed way, over real
 * HTTP: the ids and defaults it fills, what drops the resource, its deadline, and a read that
 * may predate the last command.
 */

type Props = Record<string, unknown>;
const ORG = randomUUID();
const SVC = randomUUID();

describe("ServiceRunState refresh, answer by answer", function () {
  this.timeout(20_000);
  const api = answeringServer({ organizationId: ORG });
  const serve = api.serve;
  const service = (fields: Props) => serviceAnswer(SVC, fields);
  const error = errorAnswer;

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
        lastCommand: { command: "", sentAt: "", seen: false },
        observedState: "idle",
        serviceName: "db",
        databaseVersion: "24.3",
        endpoints: [{ protocol: "", host: "h", port: 0, username: null }],
      },
    });
    assert.equal(api.server.requests[0].url, `/v1/organizations/${ORG}/services/${SVC}`);
  });

  it("ServiceRunState read: a 400 saying the service is not found drops it; one about the key fails", async () => {
    await serve(400, error(400, "Service not found"));
    assert.deepEqual(await provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }), {
      id: "",
      props: {},
    });
    await serve(400, error(400, "Invalid API key id"));
    await assert.rejects(
      provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }),
      /400 Invalid API key id/,
    );
    // Something else not found is no reason to drop the service from the stack.
    await serve(400, error(400, "Endpoint not found"));
    await assert.rejects(
      provider.serviceRunStateRead(SVC, { serviceId: SVC, organizationId: ORG }),
      /400 Endpoint not found/,
    );
  });

  it("ServiceRunState read has a deadline: a server asking to wait past it fails the read at once", async () => {
    const server = await api.serveWith((_req, res, { count }) => {
      if (count === 1) {
        res.writeHead(429, { "retry-after": "5" });
        return res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
      }
      res.end(JSON.stringify(service({ state: "running" })));
    });
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
    assert.equal(api.server.requests.length, 0);
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
});
