import * as pulumi from "@pulumi/pulumi";

/**
 * Runs a Pulumi program under `pulumi.runtime.setMocks` and keeps what each resource was
 * registered with, including the real serialized `__provider` of dynamic resources. Under mocks
 * no CRUD method runs: this is what `pulumi preview`/`up` would send to the engine.
 */

export interface CapturedResource {
  type: string;
  name: string;
  urn: string;
  /** Inputs as the engine receives them; `__provider` is the serialized provider text. */
  inputs: Record<string, unknown>;
  /** True when a secret was captured and the whole `__provider` became secret. */
  providerIsSecret: boolean;
}

export interface CaptureOptions {
  project: string;
  stack: string;
  preview?: boolean;
  /** Stack config, keys like `dbcloud:organizationId` or `<project>:services`; JSON text for objects. */
  config: Record<string, string>;
  secretKeys?: string[];
}

const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const SIG_KEY = "4dabf18193072939515e22adb298388d";

function unwrapSecret(value: unknown): { value: unknown; secret: boolean } {
  if (value && typeof value === "object" && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG) {
    return { value: (value as { value: unknown }).value, secret: true };
  }
  return { value, secret: false };
}

/**
 * `program` is a module path (required afresh each time, with the modules under `freshUnder`
 * dropped from the require cache) or a function.
 */
export async function captureProgram(
  program: string | (() => unknown),
  options: CaptureOptions & { freshUnder?: string },
): Promise<CapturedResource[]> {
  const captured: CapturedResource[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        const inputs = { ...args.inputs } as Record<string, unknown>;
        const provider = unwrapSecret(inputs.__provider);
        inputs.__provider = provider.value;
        const urn = `urn:pulumi:${options.stack}::${options.project}::${args.type}::${args.name}`;
        captured.push({ type: args.type, name: args.name, urn, inputs, providerIsSecret: provider.secret });
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    options.project,
    options.stack,
    options.preview ?? false,
  );
  pulumi.runtime.setAllConfig(options.config, options.secretKeys ?? []);

  if (typeof program === "string") {
    const prefix = options.freshUnder;
    for (const key of Object.keys(require.cache)) {
      if (key === program || (prefix && key.startsWith(prefix))) delete require.cache[key];
    }
    require(program);
  } else {
    await program();
  }
  // Registrations are asynchronous: wait until the mock monitor has seen them all.
  await (pulumi.runtime as unknown as { waitForRPCs(): Promise<void> }).waitForRPCs();
  return captured;
}
