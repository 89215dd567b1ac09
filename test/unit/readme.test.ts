import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import * as root from "../../src/index";
import {
  DEFAULT_RATE_LIMIT,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUTS,
  DEFAULT_TIMEOUT_SECONDS,
  KNOWN_STATES,
  MAX_TIMEOUT_SECONDS,
  type ReversePrivateEndpointDeletion,
  type ServiceRunState,
} from "../../src/index";
// The README also states defaults that are not root exports; each is read from where it is defined.
import { MAX_BODY_BYTES } from "../../src/api/transport";
import { CONFIG_SETTINGS, resolveConfig } from "../../src/config";
import {
  DEFAULT_DELETE_TIMEOUT_SECONDS,
  DEFAULT_ON_DESTROY,
  READ_TIMEOUT_SECONDS,
} from "../../src/provider/defaults";
import { DEFAULT_TUNING } from "../../src/provider/converge";

/*
 * The README states facts the code defines: defaults, bounds, settings, output names. These tests
 * read each fact back from the README's tables and code blocks and compare it with the code, so
 * the two cannot drift apart. They check numbers and names, never wording or line wraps.
 */
const ROOT = join(__dirname, "..", "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const behaviour = readFileSync(join(ROOT, "docs", "behaviour.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** Runs of whitespace as one space, so a reflowed paragraph says the same. */
const flat = (text: string) => text.replace(/\s+/g, " ");

/** The text under a `## ` heading, up to the next one. */
function section(title: string): string {
  const start = readme.search(new RegExp(`^## ${title}\\s*$`, "m"));
  assert.ok(start >= 0, `README has a section "## ${title}"`);
  const next = readme.slice(start + 3).search(/^## /m);
  return next < 0 ? readme.slice(start) : readme.slice(start, start + 3 + next);
}

/** Each markdown table of `text` as rows of trimmed cells (the separator row left out). */
function tables(text: string): string[][][] {
  const found: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of text.split("\n")) {
    if (!line.trim().startsWith("|")) {
      current = undefined;
      continue;
    }
    if (!current) found.push((current = []));
    const cells = line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((cell) => cell.trim());
    if (!cells.every((cell) => /^:?-+:?$/.test(cell))) current.push(cells);
  }
  return found;
}

/** The one table of `text` whose header row starts with `firstColumn`. */
function table(text: string, firstColumn: string): string[][] {
  const matches = tables(text).filter((rows) => rows[0][0] === firstColumn);
  assert.equal(matches.length, 1, `one table whose first column is "${firstColumn}"`);
  return matches[0];
}

/** The numbers written in `text`, in order. */
const numbersIn = (text: string) => (text.match(/\d+(?:\.\d+)?/g) ?? []).map(Number);

/** Whether `expected` appears in `actual` in order, other numbers allowed between. */
function inOrder(actual: number[], expected: number[]): boolean {
  let next = 0;
  for (const value of actual) if (value === expected[next]) next++;
  return next === expected.length;
}

const unquote = (cell: string) => cell.replace(/`/g, "");
const seconds = (ms: number) => ms / 1000;

/** Each output a resource class declares (its `Output` properties), from the class's type. */
type OutputName<T> = Exclude<
  { [K in keyof T]: T[K] extends pulumi.Output<unknown> ? K : never }[keyof T],
  "urn" | "id"
>;

/** Every output of each resource; the types make a missing or an unknown name a compile error. */
const SERVICE_RUN_STATE_OUTPUTS = {
  organizationId: true,
  serviceId: true,
  state: true,
  timeoutSeconds: true,
  waitForState: true,
  onDestroy: true,
  deleteTimeoutSeconds: true,
  observedState: true,
  serviceName: true,
  databaseVersion: true,
  endpoints: true,
  lastCommand: true,
} satisfies Record<OutputName<ServiceRunState>, true>;
const ENDPOINT_DELETION_OUTPUTS = {
  organizationId: true,
  serviceId: true,
  reversePrivateEndpointId: true,
  timeoutSeconds: true,
} satisfies Record<OutputName<ReversePrivateEndpointDeletion>, true>;

describe("README states what the code defines", () => {
  it("is at most 350 lines", () => {
    const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
    assert.ok(lines <= 350, `README has ${lines} lines`);
  });

  it("shows the two commands, and package.json has the scripts they run", () => {
    const text = flat(readme);
    assert.ok(text.includes("npm ci && npm run demo"), "README shows `npm ci && npm run demo`");
    assert.ok(/(^|[^:\w-])npm test\b/.test(text), "README shows `npm test`");
    assert.ok(pkg.scripts.demo, "package.json has a demo script");
    assert.ok(pkg.scripts.test, "package.json has a test script");
  });

  it("the configuration table lists exactly the settings, their variables and defaults", () => {
    const [header, ...rows] = table(section("Configuration"), "stack config");
    assert.deepEqual(header.slice(0, 3), ["stack config", "environment", "default"]);
    const settings = Object.values(CONFIG_SETTINGS);
    // Required is what resolveConfig does: with the others valid, leaving this one out fails.
    const valid: Record<string, string> = {
      "dbcloud:apiUrl": "https://api.example.com",
      "dbcloud:apiKeyId": "key-id",
      "dbcloud:apiKeySecret": "key-secret",
    };
    const required = (configKey: string) => {
      try {
        resolveConfig((key) => (key === configKey ? undefined : valid[key]), {});
        return false;
      } catch (error) {
        assert.match((error as Error).message, new RegExp(`Missing .*${configKey}`));
        return true;
      }
    };
    assert.deepEqual(
      rows.map((row) => unquote(row[0])).sort(),
      settings.map((setting) => setting.configKey).sort(),
    );
    for (const setting of settings) {
      const row = rows.find((r) => unquote(r[0]) === setting.configKey)!;
      assert.equal(unquote(row[1]), setting.envVar, `variable of ${setting.configKey}`);
      assert.equal(row[2] === "required", required(setting.configKey), `is ${setting.configKey} required?`);
    }
    const rateLimit = rows.find((r) => unquote(r[0]) === CONFIG_SETTINGS.rateLimit.configKey)!;
    assert.equal(
      unquote(rateLimit[2]),
      `${DEFAULT_RATE_LIMIT.requests}/${seconds(DEFAULT_RATE_LIMIT.windowMs)}s`,
    );
  });

  it("the limits table states every default and bound as the code does", () => {
    const rows = table(section("Retries and limits"), "bound").slice(1);
    const value = (label: string) => {
      const row = rows.find((r) => r[0].includes(label));
      assert.ok(row, `the limits table has a row "${label}"`);
      return row[1];
    };
    const expect = (label: string, numbers: number[]) =>
      assert.ok(inOrder(numbersIn(value(label)), numbers), `"${label}" should state ${numbers.join(", ")}`);
    expect("create and update", [DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS]);
    expect("refresh", [READ_TIMEOUT_SECONDS]);
    expect("endpoint DELETE", [DEFAULT_DELETE_TIMEOUT_SECONDS]);
    expect("poll interval", [seconds(DEFAULT_TUNING.pollEveryMs)]);
    expect("grace period", [seconds(DEFAULT_TUNING.commandGraceMs)]);
    expect("progress lines", [seconds(DEFAULT_TUNING.progressEveryMs)]);
    expect("commands per run", [DEFAULT_TUNING.maxCommands]);
    expect("attempts per request", [DEFAULT_RETRY_POLICY.maxAttempts]);
    expect("backoff", [seconds(DEFAULT_RETRY_POLICY.maxDelayMs), seconds(DEFAULT_RETRY_POLICY.baseDelayMs)]);
    expect("total retry time", [seconds(DEFAULT_RETRY_POLICY.maxElapsedMs)]);
    expect("server-named waits", [seconds(DEFAULT_RETRY_POLICY.maxServerDelayMs)]);
    const { connectMs, headersMs, bodyMs, totalMs } = DEFAULT_TIMEOUTS;
    expect("per-attempt timeouts", [connectMs, headersMs, bodyMs, totalMs].map(seconds));
    assert.ok(value("response body").includes(`${MAX_BODY_BYTES / 2 ** 20} MiB`), "the body cap in MiB");
    expect("client rate budget", [DEFAULT_RATE_LIMIT.requests, seconds(DEFAULT_RATE_LIMIT.windowMs)]);
  });

  it("every rate stated anywhere is the default rate limit", () => {
    const rates = [...flat(readme).matchAll(/(\d+) requests per (\d+) s\b/g)];
    assert.ok(rates.length > 0);
    for (const [text, requests, window] of rates) {
      assert.deepEqual(
        [Number(requests), Number(window)],
        [DEFAULT_RATE_LIMIT.requests, seconds(DEFAULT_RATE_LIMIT.windowMs)],
        text,
      );
    }
  });

  it("the resources' signatures state the defaults of their inputs", () => {
    /** The line of the section's code block that declares `input`, whitespace collapsed. */
    const declaration = (title: string, input: string) => {
      const block = /```ts\n([\s\S]*?)```/.exec(section(title))?.[1] ?? "";
      const line = block.split("\n").find((l) => l.trim().startsWith(`${input}?:`));
      assert.ok(line, `${title}'s signature declares ${input}`);
      return flat(line);
    };
    const runState = declaration("ServiceRunState", "timeoutSeconds");
    assert.ok(inOrder(numbersIn(runState), [DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS]), runState);
    assert.ok(declaration("ServiceRunState", "onDestroy").includes(`default "${DEFAULT_ON_DESTROY}"`));
    const endpoint = declaration("ReversePrivateEndpointDeletion", "timeoutSeconds");
    assert.ok(inOrder(numbersIn(endpoint), [DEFAULT_DELETE_TIMEOUT_SECONDS]), endpoint);
  });

  it("names every output of each resource in its section", () => {
    const outputs: [string, object][] = [
      ["ServiceRunState", SERVICE_RUN_STATE_OUTPUTS],
      ["ReversePrivateEndpointDeletion", ENDPOINT_DELETION_OUTPUTS],
    ];
    for (const [title, names] of outputs) {
      const text = section(title);
      for (const name of Object.keys(names)) assert.ok(text.includes(`\`${name}\``), `${title}: ${name}`);
    }
  });

  it("the state table (docs/behaviour.md) has a row for every state the code knows, each once", () => {
    const rows = table(behaviour, "observed state").slice(1);
    const named = rows.flatMap((row) => [...row[0].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    assert.deepEqual([...named].sort(), [...KNOWN_STATES].sort());
    assert.ok(
      rows.some((row) => !row[0].includes("`")),
      "a row for any other state",
    );
  });

  it("the errors table names every error class the package exports", () => {
    const classes = table(section("Errors"), "class")
      .slice(1)
      .map((row) => unquote(row[0]));
    const exported = Object.entries(root)
      .filter(([, value]) => typeof value === "function" && value.prototype instanceof Error)
      .map(([name]) => name);
    assert.ok(exported.length > 10);
    for (const name of exported) assert.ok(classes.includes(name), `the errors table names ${name}`);
  });
});
