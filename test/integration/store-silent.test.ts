import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { RedisBudget } from "../../src/api/redisBudget";
import { parseStoreAddress } from "../../src/api/storeAddress";
import { startEmulator, type Emulator } from "../../src/emulator";
import { readThroughSilentStore } from "../helpers/silentStoreReader";

/*
 * A store that takes the connection and never answers a byte: the process falls back to its own
 * budget, and once its work is done it exits by itself. A `pulumi up` whose provider host never
 * exits never ends.
 */

describe("rate limit store that never answers", function () {
  this.timeout(60_000);
  let emulator: Emulator | undefined;
  let silent: Server | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    sockets.splice(0).forEach((socket) => socket.destroy());
    silent?.close();
    await emulator?.close();
  });

  it("the read is answered through the local budget, and the process then exits by itself", async () => {
    const organizationId = randomUUID();
    const serviceId = randomUUID();
    emulator = await startEmulator({
      services: [{ organizationId, id: serviceId, name: "silent-store", state: "running" }],
    });
    let connections = 0;
    silent = createServer((socket) => {
      connections++;
      sockets.push(socket.on("error", () => undefined));
    });
    await new Promise<void>((resolve) => silent!.listen(0, "127.0.0.1", resolve));
    const store = `redis://:store-password@127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const args = [store, emulator.url, emulator.keyId, emulator.keySecret, organizationId, serviceId];

    // Generous: the store's own limit is seconds, and the child starts ts-node on a busy machine.
    const { code, out, err } = await readThroughSilentStore(args, 45_000);

    assert.match(out, /^READ running$/m, `the read was answered\n${err}`);
    assert.equal(connections, 1, "the store was tried");
    assert.equal(err.match(/store redis:\/\/127\.0\.0\.1:\d+ failed/g)?.length, 1, `one warning\n${err}`);
    assert.doesNotMatch(err, /store-password/);
    assert.equal(code, 0, `exited by itself (null: still running when killed)\n${err}`);
  });

  it("a store given up while its client module still loads is never dialled", async () => {
    let connections = 0;
    silent = createServer((socket) => {
      connections++;
      sockets.push(socket.on("error", () => undefined));
    });
    await new Promise<void>((resolve) => silent!.listen(0, "127.0.0.1", resolve));
    const address = parseStoreAddress(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    if ("problems" in address) throw new Error(address.problems.join("; "));
    const warnings: string[] = [];
    const budget = new RedisBudget(address, "dbcloud:test", { requests: 1, windowMs: 1_000 }, 1_000, (m) =>
      warnings.push(m),
    );
    // The order a busy process can take: the store's time bound runs out (fail) while the client
    // module is still loading. Driven directly, as no public call can order the two.
    const internals = budget as unknown as { connected(): Promise<unknown>; fail(error: unknown): void };
    const connecting = internals.connected();
    internals.fail(new Error("no answer within 2000 ms"));
    const outcome = await Promise.race([
      connecting.then(
        () => "connected",
        () => "given up",
      ),
      once(silent, "connection").then(() => "dialled"),
    ]);

    // A client dialled after the failure would hold the process open on a silent store.
    assert.equal(outcome, "given up");
    assert.equal(connections, 0);
    assert.equal(warnings.length, 1);
    assert.equal(await budget.admit(0, "after"), undefined, "the store stays given up");
  });
});
