import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_SETTINGS } from "../../src/config";
import { DEFAULT_TIMEOUTS } from "../../src/api/client";
import { ADAPTIVE_RATE, defaultMarginMs } from "../../src/api/rateBudget";
import { DEFAULT_RATE_LIMIT, formatRateLimit } from "../../src/api/rateLimit";
import { STALE_LOCK_MS } from "../../src/api/fileLedger";
import { DEFAULT_RETRY_POLICY } from "../../src/api/retry";
import { DEFAULT_TUNING, MIN_POLL_MS } from "../../src/provider/converge";
import { MIN_RETRY_DELAY_MS } from "../../src/api/retry";
import { MAX_BODY_BYTES, MAX_REQUEST_ID_CHARS, MAX_SERVER_MESSAGE_CHARS } from "../../src/api/transport";
import { MIN_TIME_SCALE } from "../../src/config";
import {
  DEFAULT_DELETE_TIMEOUT_SECONDS,
  DEFAULT_ON_DESTROY,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  READ_TIMEOUT_SECONDS,
} from "../../src/provider/defaults";
import { SECRET_SERVICE_FIELDS } from "../../src/resources/getService";

// The README states defaults in prose and tables; these tests read them back from the code so
// the two cannot drift apart (a common failing of otherwise good client libraries).
const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
const s = (ms: number) => `${ms / 1000} s`;

function includes(text: string): void {
  assert.ok(readme.includes(text), `README should say: ${text}`);
}

describe("README tells the truth about defaults", () => {
  it("lists every configuration setting with its config key and variable", () => {
    for (const setting of Object.values(CONFIG_SETTINGS)) {
      const row = readme.split("\n").find((line) => line.includes(`\`${setting.configKey}\``));
      assert.ok(row, `no configuration row for ${setting.configKey}`);
      assert.ok(
        row.includes(`\`${setting.envVar}\``),
        `row of ${setting.configKey} should name ${setting.envVar}`,
      );
      assert.equal(/\brequired\b/.test(row), setting.required, `row of ${setting.configKey}: required?`);
    }
    const rateRow = readme.split("\n").find((line) => line.includes("`dbcloud:rateLimit`"));
    assert.ok(rateRow?.includes(`\`${formatRateLimit(DEFAULT_RATE_LIMIT)}\``));
  });

  it("states the read and delete bounds and the time-scale range", () => {
    includes(`A read (refresh) is\nbounded at ${READ_TIMEOUT_SECONDS} s`);
    includes(`bound of the DELETE on destroy; default ${DEFAULT_DELETE_TIMEOUT_SECONDS}`);
    includes(`(a number from ${MIN_TIME_SCALE} to 1, default 1;`);
  });

  it("states the ServiceRunState timeout defaults", () => {
    includes(`timeoutSeconds?: Input<number>,      // default ${DEFAULT_TIMEOUT_SECONDS}`);
    includes(`(default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS})`);
  });

  it("states the onDestroy default, and which Service fields are secret", () => {
    includes(`onDestroy?: Input<"leave" | "stop">, // default ${DEFAULT_ON_DESTROY}`);
    includes(`with \`onDestroy: "${DEFAULT_ON_DESTROY}"\` (the default)`);
    for (const field of SECRET_SERVICE_FIELDS) includes(`(\`${field}\`, or any field whose name`);
  });

  it("states the waiting knobs", () => {
    includes(`a poll ${s(DEFAULT_TUNING.pollEveryMs)} after each answer`);
    includes(`grace period (${s(DEFAULT_TUNING.commandGraceMs)})`);
    includes(
      `**Until then, within the grace period (${s(DEFAULT_TUNING.commandGraceMs)}) after \`sentAt\`**`,
    );
    includes(`from ${s(DEFAULT_TUNING.commandGraceMs)} after the command on, a GET is`);
    includes(`A progress line at most every ${s(DEFAULT_TUNING.progressEveryMs)}`);
    includes(`at most ${DEFAULT_TUNING.maxCommands} commands in all`);
  });

  it("states the retry policy and timeouts", () => {
    includes(`| ${DEFAULT_RETRY_POLICY.maxAttempts} at most, first included`);
    includes(
      `min(${s(DEFAULT_RETRY_POLICY.maxDelayMs)}, ${s(DEFAULT_RETRY_POLICY.baseDelayMs)} x 2^(retry-1))`,
    );
    includes(`${s(DEFAULT_RETRY_POLICY.maxElapsedMs)} at most`);
    includes(
      `connect ${s(DEFAULT_TIMEOUTS.connectMs)}, response headers ${s(DEFAULT_TIMEOUTS.headersMs)}, body ${s(DEFAULT_TIMEOUTS.bodyMs)}, and the whole attempt ${s(DEFAULT_TIMEOUTS.totalMs)}`,
    );
    includes(`capped at ${s(DEFAULT_RETRY_POLICY.maxServerDelayMs)}`);
    includes(`no retry delay under ${MIN_RETRY_DELAY_MS} ms and no poll under ${MIN_POLL_MS} ms`);
    includes(`up to ${MAX_BODY_BYTES / 1024 / 1024} MiB`);
    includes(`server message ${MAX_SERVER_MESSAGE_CHARS} characters, request id ${MAX_REQUEST_ID_CHARS}`);
    includes(`${DEFAULT_RATE_LIMIT.requests} requests per ${s(DEFAULT_RATE_LIMIT.windowMs)} per key`);
  });

  it("states the budget's margin, its sharing and its adaptation", () => {
    includes(
      `(with a ${defaultMarginMs(DEFAULT_RATE_LIMIT)} ms margin; 1 % of a shorter window, at least 20 ms`,
    );
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 1_000 }), 20);
    includes(`a lock older than ${s(STALE_LOCK_MS)}`);
    includes(`a 429 cuts\n  the rate to ${ADAPTIVE_RATE.decrease} x`);
    includes(`never below ${ADAPTIVE_RATE.floor} x the limit`);
    includes(`over ${ADAPTIVE_RATE.recoverWindows} windows`);
    includes(`the rate drops to ${ADAPTIVE_RATE.decrease} x`);
  });
});
