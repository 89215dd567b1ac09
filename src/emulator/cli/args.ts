// Command-line flags of dbcloud-emulator. Anything unexpected is a usage error naming the flag,
// never a silent default.
import type { RateLimit } from "../types";

export interface CliArgs {
  host: string;
  port: number;
  seedFile?: string;
  /** From --rate-limit; undefined when the flag is absent (the seed file or the default decides). */
  rateLimit?: RateLimit | false;
  help: boolean;
}

export const DEFAULT_CLI_PORT = 8787;
/** The real service's limit: the CLI behaves like it unless told otherwise. */
export const DEFAULT_CLI_RATE_LIMIT: RateLimit = { requests: 10, windowMs: 10_000 };

export const USAGE = `Usage: dbcloud-emulator [options]

A local emulator of the database cloud management API (service state, service read,
reverse private endpoint deletion). It prints the URL and the key pair it accepts.

Options:
  --port N              port to listen on (default ${DEFAULT_CLI_PORT}; 0 picks a free one)
  --host HOST           interface to listen on (default 127.0.0.1)
  --seed FILE           JSON seed: { "keyId"?, "keySecret"?, "transitions"?, "visibilityLagMs"?,
                        "rateLimit"?, "services": [{ "organizationId", "id"?, "name"?, "state"?,
                        "reversePrivateEndpointIds"?, "fields"? }] }
                        (default: one organization with a running and a stopped service)
  --rate-limit N/DUR|off  requests per window per key, e.g. 10/10s, 100/1m, 5/500ms
                        (default ${DEFAULT_CLI_RATE_LIMIT.requests}/${DEFAULT_CLI_RATE_LIMIT.windowMs / 1000}s, like the real service)
  --help                show this help

Control surface (no auth): /_emulator/services, /_emulator/faults, /_emulator/requests, ...
`;

export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** "10/10s" → 10 requests per 10 000 ms; "off" → no limit. */
export function parseRateLimitFlag(text: string): RateLimit | false {
  if (text === "off") return false;
  const match = /^(\d+)\/(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text);
  const requests = match ? Number(match[1]) : 0;
  const windowMs = match ? Number(match[2]) * DURATION_UNITS_MS[match[3]] : 0;
  if (requests < 1 || windowMs <= 0) {
    throw new CliUsageError(
      `--rate-limit must be N/DURATION (e.g. 10/10s, 100/1m, 5/500ms) or off, got "${text}"`,
    );
  }
  return { requests, windowMs };
}

function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535))
    throw new CliUsageError(`--port must be an integer from 0 to 65535, got "${text}"`);
  return port;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { host: "127.0.0.1", port: DEFAULT_CLI_PORT, help: false };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    // Both "--port 8787" and "--port=8787".
    const [flag, inlineValue] =
      arg.startsWith("--") && arg.includes("=") ? splitOnce(arg, "=") : [arg, undefined];
    const value = (): string => {
      const next = inlineValue ?? argv[++index];
      if (next === undefined || next === "") throw new CliUsageError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--help":
      case "-h":
        args.help = true;
        break;
      case "--port":
        args.port = parsePort(value());
        break;
      case "--host":
        args.host = value();
        break;
      case "--seed":
        args.seedFile = value();
        break;
      case "--rate-limit":
        args.rateLimit = parseRateLimitFlag(value());
        break;
      default:
        throw new CliUsageError(
          arg.startsWith("-")
            ? `unknown flag ${flag}`
            : `unexpected argument "${arg}" (this command takes flags only)`,
        );
    }
  }
  return args;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + separator.length)];
}
