/**
 * Per-call overhead on loopback, a sanity check rather than a target: the API takes about one
 * request a second, tens of ms each on a real network, so the client's own cost only has to stay
 * small. A provider read (serviceRunStateRead, through the client and its schemas), a client
 * getService and a raw undici GET of the same service run alternately, so that machine noise hits
 * all three alike; the line printed compares their medians with SANITY_RATIO.
 *   npx ts-node --transpile-only bench/overhead.ts [rounds]
 */
import { randomUUID } from "node:crypto";
import { request } from "undici";
import { ApiClient } from "../src/api/client";
import { startEmulator } from "../src/emulator";
import * as provider from "../src/provider";

/** A provider read may cost at most this many times a raw undici GET of the same service. */
export const SANITY_RATIO = 1.5;

export interface OverheadResult {
  rounds: number;
  medianUs: { providerRead: number; clientGet: number; rawGet: number };
  ratio: { providerRead: number; clientGet: number };
}

/** The one line a bench prints for it. */
export function overheadLine({ medianUs: m, ratio: r }: OverheadResult): string {
  const verdict = r.providerRead <= SANITY_RATIO ? "ok" : "TOO SLOW";
  return (
    `per-call overhead (sanity, at most ${SANITY_RATIO} x a raw undici GET): provider read ` +
    `${r.providerRead.toFixed(2)} x, client getService ${r.clientGet.toFixed(2)} x ` +
    `(raw GET ${m.rawGet.toFixed(0)} us on loopback): ${verdict}`
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureOverhead(rounds = 1000): Promise<OverheadResult> {
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
    for (let round = -100; round < rounds; round++) {
      for (const name of names) {
        const started = process.hrtime.bigint();
        await calls[name]();
        const us = Number(process.hrtime.bigint() - started) / 1000;
        if (round >= 0) samples[name].push(us); // the first 100 rounds warm up
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
  measureOverhead(Number(process.argv[2] ?? 1000))
    .then((result) => {
      console.log(overheadLine(result));
      process.exit(result.ratio.providerRead <= SANITY_RATIO ? 0 : 1);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
