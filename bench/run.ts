/**
 * `npm run bench`: every block in one run, a table on stdout and the same figures in
 * bench/results.json. Ratios and spreads are reported, never asserted: these machines are shared
 * and noisy (the targets are in the table's last column).
 *   P1  per-call overhead on loopback, a sanity line (bench/overhead.ts)
 *   P2  waiting for 5, 60 and 300 s transitions: each alone, and one process converging all three
 *       in a row (mixed history)
 *   P3  fleets on one key, server limit 10 per 10 s, vs the floor (bench/fleet.ts FLEET_ROWS):
 *       50 services in one process at 30, 60 and 300 s transitions; 4 processes x 10 on one
 *       machine (real child processes, the shared file); the same as separate machines, started
 *       together and staggered; bursts of reads from separate machines
 *   P4  serialized provider as installed, host cold start, host peak RSS after 50 services;
 *       the plugin's single executable: size, build time, cold start to its port vs the npm bin
 * BENCH_REPEATS (P2 runs per row, default 9) and BENCH_FLEET_SCALE (default 0.1) change the run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeSharedDispatchers } from "../src/api/shared";
import { FLEET_ROWS, fleetMet, fleetRowRuns, fleetTarget, runFleet, type FleetResult } from "./fleet";
import { measureOverhead } from "./overhead";
import { runP2, type P2Row } from "./p2";
import { runP4 } from "./p4";
import { runP4Plugin } from "./p4-plugin";
import { formatSpread } from "./stats";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 9);
const FLEET_SCALE = Number(process.env.BENCH_FLEET_SCALE ?? 0.1);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c])).join(" | ")} |`;
  return [
    line(rows[0]),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

/** The scale P2 runs at: a 300 s transition takes 30 s. */
const P2_SCALE = 0.1;
/**
 * Differences below these are timer noise: each poll comes a few wall-clock ms late on a loaded
 * machine, which shifts where the next ones fall, and so whether the last one lands before or
 * after the transition's end (one poll more or less, and up to a second of lateness).
 */
const P2_RESOLUTION_SECONDS = 1;
const P2_RESOLUTION_REQUESTS = 1;

/** A mixed history must cost no more requests and arrive no later than the same transition alone. */
function p2Verdict(row: P2Row): string {
  const { alone, mixed } = row;
  const noMore = mixed.requests.median <= alone.requests.median + P2_RESOLUTION_REQUESTS;
  const noLater = mixed.lateSeconds.median <= alone.lateSeconds.median + P2_RESOLUTION_SECONDS;
  return noMore && noLater ? "met" : "MISSED";
}

function fleetRow(name: string, r: FleetResult, target: string, met: boolean): string[] {
  return [
    name,
    `${r.seconds.toFixed(0)} s vs floor ${r.floorSeconds} s = ${r.ratio.toFixed(2)} x; ${r.requests} requests, ${r.rateLimited} x 429, ${r.failures} failed`,
    target,
    met ? "met" : "MISSED",
  ];
}

async function main() {
  const started = Date.now();
  const log = (line: string) =>
    process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  const silence = console.log;
  console.log = () => undefined; // the provider's progress lines would drown the table
  try {
    log("P1 per-call overhead");
    const p1 = await measureOverhead(1500);
    log("P2 waiting: alone and mixed history");
    const p2 = await runP2(REPEATS, P2_SCALE);
    const p3: (FleetResult | undefined)[] = [];
    for (const row of FLEET_ROWS) {
      log(`P3 ${row.name}`);
      p3.push(fleetRowRuns(row) ? await runFleet({ ...row, scale: FLEET_SCALE }) : undefined);
    }
    log("P4 package as installed, provider host");
    const p4 = await runP4();
    log("P4 plugin: single executable vs npm bin");
    const p4Plugin = await runP4Plugin();

    const rows: string[][] = [["block", "measured (median [p25-p75])", "target", "verdict"]];
    rows.push([
      "P1 provider read / raw undici GET",
      `${p1.ratio.providerRead.toFixed(2)} x (client getService ${p1.ratio.clientGet.toFixed(2)} x; raw ${p1.medianUs.rawGet.toFixed(0)} us)`,
      "<= 1.5 x (sanity)",
      p1.ratio.providerRead <= 1.5 ? "met" : "MISSED",
    ]);
    for (const row of p2) {
      for (const [name, runs] of [
        ["alone", row.alone],
        ["mixed history", row.mixed],
      ] as const) {
        rows.push([
          `P2 ${row.nominalSeconds} s, ${name} (n=${runs.requests.n})`,
          `requests ${formatSpread(runs.requests, 0)}; late ${formatSpread(runs.lateSeconds)} s`,
          name === "alone"
            ? "constant 5 s poller"
            : `no more requests (+-${P2_RESOLUTION_REQUESTS}), no later (+-${P2_RESOLUTION_SECONDS.toFixed(2)} s)`,
          name === "alone" ? "-" : p2Verdict(row),
        ]);
      }
    }
    FLEET_ROWS.forEach((row, i) => {
      const r = p3[i];
      if (r) rows.push(fleetRow(`P3 ${row.name}`, r, fleetTarget(row), fleetMet(row, r)));
      else rows.push([`P3 ${row.name}`, "skipped: redis-server is not installed", fleetTarget(row), "-"]);
    });
    const biggest = Math.max(...Object.values(p4.providerBytes));
    rows.push([
      "P4 serialized provider, installed",
      Object.entries(p4.providerBytes)
        .map(([type, bytes]) => `${type} ${(bytes / 1024).toFixed(1)} KB`)
        .join(", "),
      "<= 16 KB per type",
      biggest <= 16 * 1024 ? "met" : "MISSED",
    ]);
    rows.push([
      "P4 host cold start to first answer",
      `${formatSpread(p4.coldStartMs, 0)} ms (n=${p4.coldStartMs.n})`,
      "<= 1.5 s",
      p4.coldStartMs.median <= 1500 ? "met" : "MISSED",
    ]);
    rows.push([
      `P4 host peak RSS after ${p4.fleetServices} services`,
      `${p4.peakRssMb.toFixed(0)} MB`,
      "printed",
      "-",
    ]);
    rows.push([
      "P4 plugin executable (linux-x64)",
      `${p4Plugin.binaryMb.toFixed(0)} MB, built in ${p4Plugin.buildSeconds.toFixed(0)} s`,
      "printed",
      "-",
    ]);
    const cold = p4Plugin.coldStartMs;
    rows.push([
      `P4 plugin cold start to port (n=${cold.binary.n})`,
      `executable ${formatSpread(cold.binary, 0)} ms; npm bin ${formatSpread(cold.npmBin, 0)} ms`,
      "executable <= npm bin",
      cold.binary.median <= cold.npmBin.median ? "met" : "MISSED",
    ]);

    const results = {
      when: new Date().toISOString(),
      node: process.version,
      seconds: (Date.now() - started) / 1000,
      p1,
      p2,
      p3,
      p4,
      p4Plugin,
    };
    writeFileSync(join(__dirname, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log = silence;
    console.log(
      `benchmark (P2 at scale ${P2_SCALE}, fleets at ${FLEET_SCALE}; ` +
        `times in real-service seconds; requests per transition include the read before and the command)`,
    );
    console.log(table(rows));
    console.log(`took ${((Date.now() - started) / 1000).toFixed(0)} s; figures in bench/results.json`);
  } finally {
    console.log = silence;
    await closeSharedDispatchers();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
