import assert from "node:assert/strict";
import * as provider from "../../src/provider";
import { captureConsole, type CapturedConsole } from "./captureConsole";
import { startProviderFixture, type ProviderFixture } from "./providerFixture";

/*
 * ServiceRunState's provider functions against the emulator, as the host calls them: a fresh
 * emulator (transitions of a few hundred ms, waits scaled down) and captured console for each
 * test, and the readings the tests make of the emulator's log.
 */

export type Props = Record<string, unknown>;

/** The serialized provider the engine passes in every input. */
export const PROVIDER_TEXT = "serialized-provider-text";

export interface RunStateRig {
  fixture: ProviderFixture;
  output: CapturedConsole;
  /** A service in `state` under a fresh id; `then` moves it on to another state after a while. */
  seed(state: string, then?: { state: string; afterMs: number }): string;
  /** The inputs `check` makes of `news`, which must pass it. */
  checked(news: Props): Promise<Props>;
  /** The emulator's log for one service, as `GET`, `PATCH start`, ... */
  requests(id: string): string[];
  /** Commands the server accepted (a rate-limited PATCH is logged before its body is read). */
  patches(id: string): string[];
}

/** A RunStateRig renewed for each test of the calling `describe`. */
export function runStateEachTest(): RunStateRig {
  const rig: RunStateRig = {
    fixture: undefined as unknown as ProviderFixture,
    output: undefined as unknown as CapturedConsole,
    seed(state, then) {
      const id = rig.fixture.seedService({ name: "analytics", state });
      if (then) rig.fixture.emulator.setState(id, state, then);
      return id;
    },
    async checked(news) {
      const { inputs, failures } = await provider.serviceRunStateCheck(
        {},
        { __provider: PROVIDER_TEXT, ...news },
      );
      assert.deepEqual(failures, []);
      return inputs;
    },
    requests: (id) =>
      rig.fixture.emulator.requests
        .filter((r) => r.serviceId === id)
        .map((r) => (r.method === "PATCH" ? `PATCH ${r.command}` : r.method)),
    patches: (id) =>
      rig.fixture.emulator.requests
        .filter((r) => r.serviceId === id && r.method === "PATCH" && r.status === 200)
        .map((r) => `PATCH ${r.command}`),
  };
  beforeEach(async () => {
    rig.fixture = await startProviderFixture({ transitions: { starting: 150, stopping: 150, awaking: 100 } });
    rig.output = captureConsole();
  });
  afterEach(async () => {
    rig.output.restore();
    await rig.fixture.close();
  });
  return rig;
}
