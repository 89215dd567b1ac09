/**
 * Per-call overhead on loopback: a provider read (serviceRunStateRead, through the client and its
 * schemas), a client getService and a raw undici GET of the same service, alternating so that
 * machine noise hits all three alike. Prints medians and the ratios to the raw GET.
 *   npx ts-node --transpile-only bench/overhead.ts [rounds]
 */
import { randomUUID } from "node:crypto";
import { request } from "undici";
import { ApiClient } from "../src/api/client";
import { startEmulator } from "../src/emulator";
import * as provider from "../src/provider";

export interface OverheadResult {
  rounds: number;
  medianUs: { providerRead: number; clientGet: number; rawGet: number };
  ratio: { providerRead: number; clientGet: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureOverhead(rounds = 2000): Promise<OverheadResult> {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const emulator = await startEmulator({
    services: [{ organizationId, id: serviceId, name: "bench", state: "running" }],
  });
  try {
    const config: Record<string, string> = {
      "dbcloud:apiUrl": emulator.url,
      "dbcloud:apiKeyId": emulator.keyId,
      "dbcloud:apiKeySecret": emulator.keySecret,
      "dbcloud:rateLimit": "off",
    };
    await provider.configure({ config: { get: (key: string) => config[key] } });
    const client = new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
    });
    const url = `${emulator.url}/v1/organizations/${organizationId}/services/${serviceId}`;
    const authorization = `Basic ${Buffer.from(`${emulator.keyId}:${emulator.keySecret}`).toString("base64")}`;
    const props = { organizationId, serviceId, state: "running", timeoutSeconds: 60, waitForState: true };
    const calls = {
      providerRead: () => provider.serviceRunStateRead(serviceId, props),
      clientGet: () => client.getService(organizationId, serviceId),
      rawGet: async () => {
        const response = await request(url, { headers: { authorization, accept: "application/json" } });
        return response.body.json();
      },
    };
    const samples = { providerRead: [] as number[], clientGet: [] as number[], rawGet: [] as number[] };
    const names = Object.keys(calls) as (keyof typeof calls)[];
    for (let round = -200; round < rounds; round++) {
      for (const name of names) {
        const started = process.hrtime.bigint();
        await calls[name]();
        const us = Number(process.hrtime.bigint() - started) / 1000;
        if (round >= 0) samples[name].push(us); // the first 200 rounds warm up
      }
    }
    const medianUs = {
      providerRead: median(samples.providerRead),
      clientGet: median(samples.clientGet),
      rawGet: median(samples.rawGet),
    };
    return {
      rounds,
      medianUs,
      ratio: {
        providerRead: medianUs.providerRead / medianUs.rawGet,
        clientGet: medianUs.clientGet / medianUs.rawGet,
      },
    };
  } finally {
    await emulator.close();
  }
}

if (require.main === module) {
  measureOverhead(Number(process.argv[2] ?? 2000))
    .then((result) => {
      const { medianUs: m, ratio: r } = result;
      console.log(
        `P1 per-call overhead, ${result.rounds} rounds alternating, loopback medians: ` +
          `provider read ${m.providerRead.toFixed(0)} us (${r.providerRead.toFixed(2)} x raw), ` +
          `client getService ${m.clientGet.toFixed(0)} us (${r.clientGet.toFixed(2)} x raw), ` +
          `raw undici GET ${m.rawGet.toFixed(0)} us`,
      );
      process.exit(0);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
