import assert from "node:assert/strict";
import {
  DEFAULT_SCHEDULE,
  densePlan,
  doneLikelihood,
  estimateTransition,
  nextPollAt,
  windowSpread,
  observedDuration,
  type TransitionEstimate,
} from "../../src/provider/schedule";
import { samplesFromOutputs, samplesToOutputs, withSample } from "../../src/provider/transitions";

/*
 * The polling schedule as pure functions of the time since the command: no clock at all. The
 * last block plays many transitions against it and a constant 5 s poller (issue 11's targets,
 * on the schedule alone; the benchmark measures them end to end).
 */

const tuning = DEFAULT_SCHEDULE;

/** Poll times of one transition, until one lands at or after `endMs`. */
function pollsUntil(endMs: number, estimate: TransitionEstimate | undefined): number[] {
  const polls: number[] = [];
  let t = 0;
  do {
    t = nextPollAt(t, estimate, tuning);
    polls.push(t);
  } while (t < endMs && polls.length < 10_000);
  return polls;
}

/** A seeded generator, so a failure replays. */
function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe("polling schedule (pure)", () => {
  it("knowing nothing, polls 5 s after each answer: exactly a constant poller", () => {
    assert.deepEqual(pollsUntil(21_000, undefined), [5_000, 10_000, 15_000, 20_000, 25_000]);
    assert.equal(nextPollAt(8_000, undefined, tuning), 13_000);
  });

  it("knowing, keeps the dense polls on a grid: time a poll spent queued counts toward its interval", () => {
    const estimate = { lowMs: 48_000, highMs: 72_000 };
    const { firstMs, everyMs } = densePlan(estimate, tuning);
    // Asked at firstMs, answered later after queueing: the next is still firstMs + everyMs.
    assert.ok(Math.abs(nextPollAt(firstMs + everyMs * 0.6, estimate, tuning) - (firstMs + everyMs)) < 1e-6);
    // But never two polls back to back: at least a quarter interval apart.
    assert.ok(
      Math.abs(nextPollAt(firstMs + everyMs * 0.9, estimate, tuning) - (firstMs + everyMs * 1.15)) < 1e-6,
    );
  });

  it("estimates from the service's own history first, then the process prior, else nothing", () => {
    assert.equal(estimateTransition([], []), undefined);
    assert.deepEqual(estimateTransition([], [10_000]), { lowMs: 7_600, highMs: 12_400 });
    assert.deepEqual(estimateTransition([10_000, 10_000]), { lowMs: 8_000, highMs: 12_000 });
    assert.deepEqual(estimateTransition([50_000, 60_000, 70_000], [1_000]), {
      lowMs: 45_000,
      highMs: 77_000,
    });
    assert.equal(estimateTransition([NaN, -1], []), undefined, "garbage is not history");
  });

  it("one sample gives a wider window than several: +-24 % narrowing as 1/sqrt(n), never under 20 %", () => {
    assert.equal(windowSpread(1), 0.24);
    assert.ok(Math.abs(windowSpread(1.44) - 0.2) < 1e-12);
    assert.equal(windowSpread(2), 0.2);
    assert.equal(windowSpread(5), 0.2);
    assert.equal(windowSpread(0), 0.24, "no count is read as one");
  });

  it("sleeps to the first dense poll inside the window, polls at most 1 s apart to its end, then backs off to 10 s", () => {
    const estimate = { lowMs: 240_000, highMs: 360_000 };
    const plan = densePlan(estimate, tuning);
    assert.ok(plan.firstMs > 240_000 && plan.firstMs < 270_000, `first ${plan.firstMs}`);
    assert.equal(nextPollAt(0, estimate, tuning), plan.firstMs);
    assert.equal(nextPollAt(100_000, estimate, tuning), plan.firstMs);
    assert.ok(Math.abs(nextPollAt(plan.firstMs, estimate, tuning) - plan.firstMs - plan.everyMs) < 1e-6);
    assert.ok(plan.everyMs >= tuning.densePollMinMs && plan.everyMs <= tuning.densePollMaxMs);
    assert.equal(nextPollAt(400_000, estimate, tuning), 400_000 + 10_000, "40 s late: 10 s");
    assert.equal(nextPollAt(362_000, estimate, tuning), 362_000 + plan.everyMs, "just late: still dense");
  });

  it("places a short transition's first poll past the middle of its window, so one poll usually finds it done", () => {
    const estimate = estimateTransition([5_000])!;
    const plan = densePlan(estimate, tuning);
    assert.ok(plan.firstMs > 5_000 && plan.firstMs < estimate.highMs, `first ${plan.firstMs}`);
  });

  it("likelihood of being done: 0 before the window, rising through it, 1 after; without an estimate it rises slowly", () => {
    const estimate = { lowMs: 10_000, highMs: 20_000 };
    assert.equal(doneLikelihood(5_000, estimate), 0);
    assert.equal(doneLikelihood(15_000, estimate), 0.5);
    assert.equal(doneLikelihood(25_000, estimate), 1);
    assert.equal(doneLikelihood(60_000, undefined), 0.5);
    assert.ok(doneLikelihood(10_000, undefined) < doneLikelihood(20_000, undefined));
  });

  it("measures a transition as the middle of the span where it ended, narrowed by what was expected", () => {
    assert.equal(observedDuration(55_000, 60_000, undefined), 57_500);
    // Nothing known, and the first poll found it done: only a bound, kept as it is.
    assert.equal(observedDuration(0, 5_000, undefined), 5_000);
    // Slept from 0 to 50 s: the window [40, 60] says more than [0, 50].
    assert.equal(observedDuration(0, 50_000, { lowMs: 40_000, highMs: 60_000 }), 45_000);
    assert.equal(
      observedDuration(0, 10_000, { lowMs: 40_000, highMs: 60_000 }),
      5_000,
      "outside: the span alone",
    );
  });

  it("takes the median of the samples in order of length, whatever order the history is in", () => {
    // Median 100 ms: the window reaches down to 80 ms (20 % below it), below the smallest less 10 %.
    assert.deepEqual(estimateTransition([100, 100, 1_000, 100, 1_000]), { lowMs: 80, highMs: 1_100 });
    assert.deepEqual(estimateTransition([1_000, 100, 100, 1_000, 100]), { lowMs: 80, highMs: 1_100 });
  });

  it("spaces the dense polls by what is left of the window after the first one: short windows poll densest", () => {
    assert.equal(densePlan({ lowMs: 10_000, highMs: 11_000 }, tuning).everyMs, tuning.densePollMinMs);
    const two = densePlan({ lowMs: 10_000, highMs: 12_000 }, tuning).everyMs;
    assert.ok(two > tuning.densePollMinMs && two < tuning.densePollMaxMs, `every ${two}`);
  });

  it("backs off from the very end of the window: a poll at its end waits one dense interval, not the grid", () => {
    const estimate = { lowMs: 10_000, highMs: 12_000 };
    const { firstMs, everyMs } = densePlan(estimate, tuning);
    assert.ok((estimate.highMs - firstMs) % everyMs > 1, "the window's end is off the grid");
    assert.equal(nextPollAt(estimate.highMs, estimate, tuning), estimate.highMs + everyMs);
  });

  it("likelihood is never below 0, even for a time before the command", () => {
    assert.equal(doneLikelihood(-1_000, undefined), 0);
    assert.equal(doneLikelihood(-1_000, { lowMs: 1_000, highMs: 2_000 }), 0);
  });

  it("narrows a measured span only by a window that overlaps it, never past the last answer that showed it pending", () => {
    // The window [1, 3] s ends where the span [3, 4] s starts, or [2, 3] s before it: no overlap.
    assert.equal(observedDuration(3_000, 4_000, { lowMs: 1_000, highMs: 3_000 }), 3_500);
    assert.equal(observedDuration(3_000, 4_000, { lowMs: 1_000, highMs: 2_000 }), 3_500);
    // The window [4, 5] s starts where the span [3, 4] s ends: no overlap either.
    assert.equal(observedDuration(3_000, 4_000, { lowMs: 4_000, highMs: 5_000 }), 3_500);
    assert.equal(observedDuration(3_000, 4_000, { lowMs: 3_500, highMs: 5_000 }), 3_750, "overlapping");
  });

  it("keeps the last 5 per direction in outputs, in seconds, and drops what is not a sane duration", () => {
    let samples = samplesFromOutputs(undefined);
    for (let i = 1; i <= 7; i++) samples = withSample(samples, "start", i * 1000, 5);
    assert.deepEqual(samplesToOutputs(samples), { start: [3, 4, 5, 6, 7], stop: [] });
    assert.deepEqual(samplesFromOutputs({ start: [1.5, "2", -1, null, 1e9], stop: "x" }), {
      start: [1500],
      stop: [],
    });
    assert.deepEqual(samplesFromOutputs("garbage"), { start: [], stop: [] });
  });

  describe("against a constant 5 s poller, transitions drawn from 0.75 to 1.25 x nominal", () => {
    for (const nominal of [5_000, 60_000, 300_000]) {
      it(`${nominal / 1000} s: with history, no more polls and (from 60 s) at most half the lateness`, () => {
        const random = mulberry32(nominal);
        const draw = () => nominal * (0.75 + 0.5 * random());
        const ours = { polls: [] as number[], late: [] as number[] };
        const constant = { polls: [] as number[], late: [] as number[] };
        for (let trial = 0; trial < 500; trial++) {
          const estimate = estimateTransition(Array.from({ length: 5 }, draw));
          const end = draw();
          const a = pollsUntil(end, estimate);
          const b = pollsUntil(end, undefined);
          ours.polls.push(a.length);
          ours.late.push(a[a.length - 1] - end);
          constant.polls.push(b.length);
          constant.late.push(b[b.length - 1] - end);
        }
        assert.ok(
          median(ours.polls) <= median(constant.polls),
          `${median(ours.polls)} vs ${median(constant.polls)}`,
        );
        const bound = nominal === 5_000 ? 1 : 0.5;
        assert.ok(
          median(ours.late) <= bound * median(constant.late),
          `late ${median(ours.late)} vs ${median(constant.late)}`,
        );
      });
    }
  });
});
