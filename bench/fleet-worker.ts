/**
 * One process of the fleet benchmark (P3): configures the provider as the host would, waits for
 * the common start time, converges its services to running through the provider's create (or,
 * with `reads`, refreshes each once through its read), and prints one `RESULT {json}` line.
 * Started by bench/fleet.ts as a real child process.
 */
import { configure, serviceRunStateCheck, serviceRunStateCreate, serviceRunStateRead } from "../src/provider";

/** One service's part: a refresh, or a create that converges it to running. */
async function one(serviceId: string, organizationId: string, reads: boolean): Promise<void> {
  if (reads) {
    await serviceRunStateRead(serviceId, { serviceId, organizationId });
    return;
  }
  const { inputs, failures } = await serviceRunStateCheck({}, { serviceId, state: "running" });
  if (failures.length) throw new Error(JSON.stringify(failures));
  await serviceRunStateCreate(inputs);
}

async function main() {
  const env = JSON.parse(process.env.BENCH_FLEET_WORKER ?? "{}") as {
    url: string;
    keyId: string;
    keySecret: string;
    organizationId: string;
    rateLimit: string;
    serviceIds: string[];
    startAt: number;
    reads: boolean;
    store?: string;
  };
  const config: Record<string, string> = {
    "dbcloud:apiUrl": env.url,
    "dbcloud:apiKeyId": env.keyId,
    "dbcloud:apiKeySecret": env.keySecret,
    "dbcloud:organizationId": env.organizationId,
    "dbcloud:rateLimit": env.rateLimit,
    ...(env.store && { "dbcloud:rateLimitStore": env.store }),
  };
  await configure({ config: { get: (key: string) => config[key] } });
  console.log = () => undefined; // the provider's progress lines
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, env.startAt - Date.now())));
  const outcomes = await Promise.all(
    env.serviceIds.map(async (serviceId) => {
      try {
        await one(serviceId, env.organizationId, env.reads);
        return { ok: true, doneAt: Date.now() };
      } catch (error) {
        return {
          ok: false,
          doneAt: Date.now(),
          error: String((error as Error).message ?? error).slice(0, 300),
        };
      }
    }),
  );
  process.stdout.write(`RESULT ${JSON.stringify(outcomes)}\n`);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
