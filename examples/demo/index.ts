/**
 * `npm run demo`: the main job on the embedded emulator. Starts the emulator with a seeded
 * organization (rate limit on, transitions scaled by DEMO_SCALE), runs examples/basic through
 * the real Pulumi dynamic-provider host as the engine would (preview, up, an out-of-band stop,
 * refresh, up, destroy) and prints a transcript. Exit code 0 only if every step ended as expected.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { startEmulator, type Emulator, type RequestLogEntry } from "../../src/emulator";
import { captureProgram } from "../../src/engine-driver/capture";
import { EngineStack, type OperationResult } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";

const SCALE = Number(process.env.DEMO_SCALE ?? 0.1);
const ROOT = join(__dirname, "..", "..");
const PROGRAM = join(ROOT, "examples", "basic", "index.ts");
const PROJECT = "dbcloud-example";

const organizationId = randomUUID();
const ids = { analytics: randomUUID(), reporting: randomUUID(), ingest: randomUUID() };
const endpointId = "rpe-0001";

const failures: string[] = [];
function expect(condition: boolean, what: string): void {
  if (!condition) failures.push(what);
  console.log(`    ${condition ? "ok  " : "FAIL"} ${what}`);
}

function summarize(requests: RequestLogEntry[]): string {
  if (!requests.length) return "no API request";
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.method, (counts.get(r.method) ?? 0) + 1);
  const limited = requests.filter((r) => r.status === 429).length;
  return `${[...counts].map(([method, n]) => `${n} ${method}`).join(", ")} (${limited} rate-limited)`;
}

async function step(
  title: string,
  emulator: Emulator,
  host: ProviderHost,
  run: () => Promise<OperationResult>,
): Promise<{ result: OperationResult; requests: RequestLogEntry[] }> {
  const before = emulator.requests.length;
  const linesBefore = host.stdout.length + host.stderr.length;
  const started = Date.now();
  const result = await run();
  const requests = emulator.requests.slice(before);
  console.log(
    `\n▸ ${title.padEnd(34)} ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s   API: ${summarize(requests)}`,
  );
  for (const s of result.steps) {
    const detail = s.error ?? s.failures?.map((f) => `${f.property}: ${f.reason}`).join("; ") ?? "";
    console.log(`    ${s.kind.padEnd(12)} ${s.name.padEnd(16)} ${s.type.split(":").pop()} ${detail}`);
  }
  const lines =
    [...host.stdout, ...host.stderr].length > linesBefore
      ? [...host.stdout, ...host.stderr].slice(linesBefore)
      : [];
  for (const line of lines) console.log(`      provider: ${line.replace(/^\[dbcloud\] /, "")}`);
  return { result, requests };
}

const kinds = (result: OperationResult) => Object.fromEntries(result.steps.map((s) => [s.name, s.kind]));

async function main(): Promise<void> {
  const emulator = await startEmulator({
    transitions: { starting: 40_000 * SCALE, stopping: 30_000 * SCALE, awaking: 10_000 * SCALE },
    visibilityLagMs: 3_000 * SCALE,
    rateLimit: { requests: 10, windowMs: 10_000 * SCALE },
    services: [
      {
        organizationId,
        id: ids.analytics,
        name: "analytics",
        state: "stopped",
        reversePrivateEndpointIds: [endpointId],
      },
      { organizationId, id: ids.reporting, name: "reporting", state: "running" },
      { organizationId, id: ids.ingest, name: "ingest", state: "idle" },
    ],
  });
  const config: Record<string, string> = {
    "dbcloud:apiUrl": emulator.url,
    "dbcloud:apiKeyId": emulator.keyId,
    "dbcloud:apiKeySecret": emulator.keySecret,
    "dbcloud:organizationId": organizationId,
    "dbcloud:rateLimit": `10/${10_000 * SCALE}ms`,
    [`${PROJECT}:services`]: JSON.stringify([
      { name: "analytics", serviceId: ids.analytics, state: "running" },
      { name: "reporting", serviceId: ids.reporting, state: "stopped" },
      { name: "ingest", serviceId: ids.ingest, state: "running" },
    ]),
    [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({ serviceId: ids.analytics, endpointId }),
  };
  const secretKeys = ["dbcloud:apiKeySecret"];
  console.log(`pulumi-dbcloud demo: examples/basic on the embedded emulator (${emulator.url})`);
  console.log(
    `  time scale ${SCALE}: a 40 s start takes ${40 * SCALE} s; server rate limit 10 per ${10 * SCALE} s, client budget the same`,
  );
  console.log(`  seeded: analytics (stopped, endpoint ${endpointId}), reporting (running), ingest (idle)`);
  console.log(
    `  desired: analytics running, reporting stopped, ingest running; delete ${endpointId} on destroy`,
  );

  const resources = await captureProgram(PROGRAM, {
    project: PROJECT,
    stack: "demo",
    config,
    secretKeys,
    freshUnder: join(ROOT, "examples", "basic"),
  });
  const host = await startProviderHost({
    cwd: ROOT,
    project: PROJECT,
    env: { DBCLOUD_TIME_SCALE: String(SCALE) },
  });
  const stack = new EngineStack(host, { config, secretKeys });
  const state = (name: string) => stack.state().find((e) => e.name === name)?.outputs;
  const started = Date.now();
  try {
    const preview = await step("pulumi preview", emulator, host, () => stack.preview(resources));
    expect(
      preview.result.ok && preview.result.steps.every((s) => s.kind === "create"),
      "4 resources to create",
    );
    expect(preview.requests.length === 0, "preview sent no API request");

    const up = await step("pulumi up", emulator, host, () => stack.up(resources));
    expect(up.result.ok, "every resource created");
    expect(state("analytics")?.observedState === "running", "analytics started and running");
    expect(state("reporting")?.observedState === "stopped", "reporting stopped");
    expect(state("ingest")?.observedState === "idle", "ingest idle counts as running: no command");
    const commands = up.requests
      .filter((r) => r.method === "PATCH" && r.status === 200)
      .map((r) => r.command);
    expect(
      commands.sort().join(",") === "start,stop",
      `one start and one stop sent (sent: ${commands.join(", ")})`,
    );
    expect(
      up.requests.every((r) => r.status !== 429),
      "no request rate-limited",
    );

    emulator.setState(ids.analytics, "stopped");
    console.log(`\n▸ someone stops analytics by hand (out of band)`);

    const refresh = await step("pulumi refresh", emulator, host, () => stack.refresh());
    expect(kinds(refresh.result).analytics === "drift", "refresh shows analytics drifted");
    expect(state("analytics")?.observedState === "stopped", "observedState is now stopped");

    const again = await step("pulumi up", emulator, host, () => stack.up(resources));
    const k = kinds(again.result);
    expect(
      k.analytics === "update" && k.reporting === "same" && k.ingest === "same",
      "only analytics updated",
    );
    expect(state("analytics")?.observedState === "running", "analytics running again");

    const destroy = await step("pulumi destroy", emulator, host, () => stack.destroy());
    const deletes = destroy.requests.filter((r) => r.method === "DELETE");
    expect(destroy.result.ok && stack.state().length === 0, "stack empty");
    expect(
      deletes.length === 1 && !emulator.hasEndpoint(ids.analytics, endpointId),
      "endpoint deleted with exactly one DELETE",
    );
    expect(
      emulator.service(ids.analytics)?.state === "running" &&
        emulator.service(ids.reporting)?.state === "stopped",
      "services left as they were",
    );
    expect(!stack.serializedState().includes(emulator.keySecret), "the key secret is nowhere in the state");
  } finally {
    await host.stop();
    await emulator.close();
  }
  const total = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\n${emulator.requests.length} API requests in all, ${total} s`);
  if (failures.length) {
    console.log(`✘ ${failures.length} expectation(s) failed:\n- ${failures.join("\n- ")}`);
    process.exitCode = 1;
  } else {
    console.log("✔ every step ended as expected");
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
