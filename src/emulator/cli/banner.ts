// What the CLI prints once it listens: where it is, the key pair, the services, and lines ready to
// paste into a shell.
import type { RateLimit, TransitionTimes } from "../types";

export interface BannerService {
  organizationId: string;
  id: string;
  name: unknown;
  state: string;
  reversePrivateEndpointIds: readonly string[];
}

export interface BannerInput {
  url: string;
  keyId: string;
  keySecret: string;
  rateLimit: RateLimit | false;
  transitions: TransitionTimes;
  visibilityLagMs: number;
  services: readonly BannerService[];
}

/** Leaves plain words alone and single-quotes anything a shell would interpret. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

export function formatBanner(input: BannerInput): string {
  const { url, keyId, keySecret, services } = input;
  const rate =
    input.rateLimit === false
      ? "off"
      : `${input.rateLimit.requests} requests / ${input.rateLimit.windowMs} ms per key`;
  const transitions = Object.entries(input.transitions)
    .map(([state, ms]) => `${state} ${ms}ms`)
    .join(", ");
  const lines = [
    `dbcloud emulator listening on ${url}`,
    `  key id:      ${keyId}`,
    `  key secret:  ${keySecret}`,
    `  rate limit:  ${rate}`,
    `  transitions: ${transitions}`,
    `  visibility lag after a command: ${input.visibilityLagMs} ms`,
    "",
    services.length === 0 ? "No services (add some with POST /_emulator/services)." : "Services:",
    ...services.map(
      (service) =>
        `  organization ${service.organizationId}  service ${service.id}  ${JSON.stringify(service.name)}  ${service.state}` +
        (service.reversePrivateEndpointIds.length > 0
          ? `  reverse private endpoints: ${service.reversePrivateEndpointIds.join(", ")}`
          : ""),
    ),
  ];
  const first = services[0];
  if (first !== undefined) {
    const credentials = shellQuote(`${keyId}:${keySecret}`);
    lines.push(
      "",
      "Try it:",
      `  curl -u ${credentials} ${url}/v1/organizations/${first.organizationId}/services/${first.id}`,
    );
  }
  const environment = [
    `DBCLOUD_API_URL=${shellQuote(url)}`,
    `DBCLOUD_API_KEY_ID=${shellQuote(keyId)}`,
    `DBCLOUD_API_KEY_SECRET=${shellQuote(keySecret)}`,
    ...(first === undefined ? [] : [`DBCLOUD_ORGANIZATION_ID=${first.organizationId}`]),
  ];
  lines.push(
    "",
    "Point the provider at it:",
    `  export ${environment.join(" ")}`,
    "",
    `Control surface (no auth): ${url}/_emulator/ (services, faults, requests, rate-limit)`,
    "Press Ctrl-C to stop.",
  );
  return lines.join("\n") + "\n";
}
