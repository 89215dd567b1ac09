#!/usr/bin/env node
// dbcloud-emulator: serves the emulator until SIGINT/SIGTERM. Exit codes: 0 after a clean stop,
// 1 if it cannot start (e.g. the port is taken), 2 for a usage or seed file error.
import { type CliArgs, CliUsageError, DEFAULT_CLI_RATE_LIMIT, parseCliArgs, USAGE } from "./args";
import { formatBanner, type BannerService } from "./banner";
import { DEFAULT_TRANSITIONS } from "../defaults";
import { DEFAULT_SEED_SERVICES } from "./default-seed";
import { startEmulator } from "../emulator";
import { EmulatorInputError } from "../input/errors";
import { loadSeedFile, type SeedFile } from "./seed-file";
import type { Emulator, RateLimit } from "../types";

const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

async function main(argv: readonly string[]): Promise<void> {
  const input = readInput(argv);
  if (input === undefined) return;
  const { args, seed } = input;
  const rateLimit = args.rateLimit ?? seed.rateLimit ?? DEFAULT_CLI_RATE_LIMIT;
  const emulator = await listen(args, seed, rateLimit);
  if (emulator === undefined) return;
  const services = addSeedServices(emulator, seed);
  process.stdout.write(
    formatBanner({
      url: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit,
      transitions: { ...DEFAULT_TRANSITIONS, ...seed.transitions },
      visibilityLagMs: seed.visibilityLagMs ?? 0,
      services,
    }),
  );
  closeOnSignals(emulator);
}

/**
 * The arguments and the seed to serve, or none when there is nothing to serve: after --help, or
 * after a usage or seed file error, reported with every problem on stderr.
 */
function readInput(argv: readonly string[]): { args: CliArgs; seed: SeedFile } | undefined {
  try {
    const args = parseCliArgs(argv);
    if (args.help) {
      process.stdout.write(USAGE);
      return undefined;
    }
    const seed =
      args.seedFile === undefined ? { services: [...DEFAULT_SEED_SERVICES] } : loadSeedFile(args.seedFile);
    return { args, seed };
  } catch (error) {
    if (!(error instanceof CliUsageError || error instanceof EmulatorInputError)) throw error;
    const problems = error instanceof EmulatorInputError ? error.issues : [error.message];
    for (const problem of problems) process.stderr.write(`dbcloud-emulator: ${problem}\n`);
    process.stderr.write("Run dbcloud-emulator --help for usage.\n");
    process.exitCode = EXIT_USAGE;
    return undefined;
  }
}

/** The running emulator, or none when it cannot listen (the reason is on stderr). */
async function listen(
  args: CliArgs,
  seed: SeedFile,
  rateLimit: RateLimit | false,
): Promise<Emulator | undefined> {
  return startEmulator({
    host: args.host,
    port: args.port,
    keyId: seed.keyId,
    keySecret: seed.keySecret,
    transitions: seed.transitions,
    visibilityLagMs: seed.visibilityLagMs,
    rateLimit,
    warehouseRules: seed.warehouseRules,
  }).catch((error: unknown) => {
    process.stderr.write(
      `dbcloud-emulator: cannot listen on ${args.host}:${args.port}: ${(error as Error).message}\n`,
    );
    process.exitCode = EXIT_FAILURE;
    return undefined;
  });
}

/** Added after start rather than passed as options, to learn the ids generated for seeds without one. */
function addSeedServices(emulator: Emulator, seed: SeedFile): BannerService[] {
  return seed.services.map((service) => {
    const view = emulator.addService(service);
    return {
      organizationId: service.organizationId,
      id: view.id,
      name: view.name,
      state: view.state,
      reversePrivateEndpointIds: service.reversePrivateEndpointIds ?? [],
    };
  });
}

/** The first SIGINT or SIGTERM closes the emulator cleanly; a second one exits at once. */
function closeOnSignals(emulator: Emulator): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal while closing: the user wants out now.
      process.exit(EXIT_FAILURE);
    }
    stopping = true;
    process.stdout.write(`Received ${signal}, closing.\n`);
    emulator.close().then(
      () => {
        process.exitCode = 0;
        process.removeListener("SIGINT", stop);
        process.removeListener("SIGTERM", stop);
      },
      (error: unknown) => {
        process.stderr.write(`dbcloud-emulator: error while closing: ${String(error)}\n`);
        process.exit(EXIT_FAILURE);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `dbcloud-emulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = EXIT_FAILURE;
});
