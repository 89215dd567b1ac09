import assert from "node:assert/strict";
import { join } from "node:path";
import * as transitions from "../../src/provider/transitions";
import {
  learn,
  processPrior,
  PRIOR_HISTORY_LENGTH,
  samplesFromOutputs,
  samplesToOutputs,
  withSample,
} from "../../src/provider/transitions";
import { loadSecondCopy } from "../helpers/secondCopy";

/*
 * What the provider learns of transition lengths: the samples a resource keeps in its outputs,
 * and the process-wide prior that every copy of the package in one provider host shares.
 */

const ROOT = join(__dirname, "..", "..");

describe("transition samples", () => {
  it("keeps durations above zero up to a day, and nothing else", () => {
    const empty = { start: [], stop: [] };
    assert.deepEqual(withSample(empty, "start", 0, 5), empty, "zero is no duration");
    assert.deepEqual(withSample(empty, "start", 86_400_000, 5), { start: [86_400_000], stop: [] });
    assert.deepEqual(withSample(empty, "stop", 86_400_001, 5), empty, "longer than the longest timeout");
    assert.deepEqual(samplesFromOutputs({ start: [0, 86_400], stop: [86_400.001] }), {
      start: [86_400_000],
      stop: [],
    });
  });

  it("reads nothing from state that is null, or not an object", () => {
    for (const value of [null, undefined, 0, "", "garbage", 7, true]) {
      assert.deepEqual(samplesFromOutputs(value), { start: [], stop: [] }, JSON.stringify(value));
    }
  });

  it("reads only the last 5 entries of each list from state: an invalid recent one is not replaced by an older one", () => {
    assert.deepEqual(samplesFromOutputs({ start: [1, 2, 3, 4, 5, 6, "x"], stop: [] }), {
      start: [3000, 4000, 5000, 6000],
      stop: [],
    });
  });

  it("writes at most the last 5 of each direction to outputs, whatever it is given", () => {
    const many = { start: [1000, 2000, 3000, 4000, 5000, 6000, 7000], stop: [1000] };
    assert.deepEqual(samplesToOutputs(many), { start: [3, 4, 5, 6, 7], stop: [1] });
  });
});

describe("the process-wide prior", () => {
  it("learns every transition watched, keeping the last 20 per direction", () => {
    const prior = { start: [], stop: [] };
    for (let i = 1; i <= PRIOR_HISTORY_LENGTH + 3; i++) learn(prior, "start", i * 1000);
    assert.equal(prior.start.length, PRIOR_HISTORY_LENGTH);
    assert.equal(prior.start[0], 4000);
    assert.equal(prior.start[PRIOR_HISTORY_LENGTH - 1], (PRIOR_HISTORY_LENGTH + 3) * 1000);
    assert.deepEqual(prior.stop, []);
  });

  it("is one prior per process: every call, and a second copy of the module, get the same one", () => {
    const prior = processPrior();
    assert.ok(prior && Array.isArray(prior.start) && Array.isArray(prior.stop));
    assert.equal(processPrior(), prior);
    const second = loadSecondCopy<typeof transitions>(join(ROOT, "src", "provider", "transitions.ts"));
    assert.notEqual(second.processPrior, processPrior, "a separate copy of the module");
    assert.equal(second.processPrior(), prior);
  });

  it("is shared with another build of the package loaded in the same host (the published dist/)", () => {
    const built = require(join(ROOT, "dist", "provider", "transitions.js")) as typeof transitions;
    const prior = processPrior();
    assert.equal(built.processPrior(), prior);
    const before = [...prior.stop];
    try {
      built.learn(built.processPrior(), "stop", 12_345);
      assert.equal(prior.stop.at(-1), 12_345);
    } finally {
      // Other tests in this process wait by the prior: leave it as it was.
      prior.stop = before;
    }
  });
});
