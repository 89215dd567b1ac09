import type * as pulumi from "@pulumi/pulumi";

export interface ServiceSpec {
  name: string;
  serviceId: string;
  state: "running" | "stopped";
  timeoutSeconds?: number;
}

export interface ExampleConfig {
  services: ServiceSpec[];
  reversePrivateEndpoint?: { serviceId: string; endpointId: string };
}

/**
 * An object given as JSON text: `pulumi config set --path 'services[0]' '{"name":...}'` stores a
 * value that is not a boolean or a number as a string, so the program receives the JSON text.
 */
function objectOrJsonText(value: unknown, where: string, problems: string[]): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    problems.push(`${where} must be an object or the JSON text of one (got ${JSON.stringify(value)})`);
    return undefined;
  }
}

/**
 * Reads the program's config and reports every problem at once, naming the config key.
 * Takes the shapes the CLI stores: whole objects as JSON text, or field by field
 * (`--path 'services[0].name' analytics`). (Ids are checked again by the providers' check.)
 */
export function readExampleConfig(config: pulumi.Config): ExampleConfig {
  const problems: string[] = [];
  const services = config.getObject<unknown>("services") ?? [];
  if (!Array.isArray(services)) problems.push(`${config.name}:services must be a list`);
  const list = (Array.isArray(services) ? services : []).map((entry, index) =>
    objectOrJsonText(entry, `${config.name}:services[${index}]`, problems),
  );
  list.forEach((entry, index) => {
    const where = `${config.name}:services[${index}]`;
    const spec = entry as Partial<ServiceSpec> | null;
    if (typeof spec?.name !== "string" || !spec.name)
      problems.push(`${where}.name must be a non-empty string`);
    if (typeof spec?.serviceId !== "string") problems.push(`${where}.serviceId must be a service uuid`);
    if (spec?.state !== "running" && spec?.state !== "stopped") {
      problems.push(`${where}.state must be "running" or "stopped" (got ${JSON.stringify(spec?.state)})`);
    }
  });
  const endpoint = objectOrJsonText(
    config.getObject<unknown>("reversePrivateEndpoint"),
    `${config.name}:reversePrivateEndpoint`,
    problems,
  ) as { serviceId?: unknown; endpointId?: unknown } | undefined;
  if (endpoint && (typeof endpoint.serviceId !== "string" || typeof endpoint.endpointId !== "string")) {
    problems.push(`${config.name}:reversePrivateEndpoint needs string fields serviceId and endpointId`);
  }
  if (problems.length) throw new Error(`Invalid stack configuration:\n- ${problems.join("\n- ")}`);
  return {
    services: list as ServiceSpec[],
    reversePrivateEndpoint: endpoint as ExampleConfig["reversePrivateEndpoint"],
  };
}
