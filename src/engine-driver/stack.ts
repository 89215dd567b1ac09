import type { CapturedResource } from "./capture";
import { HostCallError, type DiffResult, type ProviderHost } from "./host";

/**
 * An engine-like driver: the calls `pulumi preview`, `up`, `refresh` and `destroy` make on a
 * dynamic provider, in the engine's order, with the state kept between steps like a stack's
 * state file. Known differences from the real engine are listed in src/engine-driver/README.md.
 */

type Props = Record<string, unknown>;

export interface StateEntry {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** Checked inputs of the last successful step (what the next diff compares against). */
  inputs: Props;
  /** Outputs; they include `__provider`, as in a real state file. */
  outputs: Props;
  /** Set when create/update failed after the resource was created (ErrorResourceInitFailed). */
  initErrors?: string[];
}

export type StepKind =
  "same" | "create" | "update" | "replace" | "delete" | "read" | "drift" | "gone" | "check-failed" | "failed";

export interface Step {
  name: string;
  type: string;
  kind: StepKind;
  diff?: DiffResult;
  failures?: { property: string; reason: string }[];
  error?: string;
  ms: number;
}

/** Makes the steps of one resource, each timed from when it began. */
function stepsOf(resource: { name: string; type: string }) {
  const started = Date.now();
  return (kind: StepKind, more: Partial<Step> = {}): Step => ({
    name: resource.name,
    type: resource.type,
    kind,
    ...more,
    ms: Date.now() - started,
  });
}

export interface OperationResult {
  operation: "preview" | "up" | "refresh" | "destroy";
  steps: Step[];
  ok: boolean;
}

const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** Removes secret markers, as the engine does before CRUD calls (the host does not accept secrets). */
export function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record[SIG_KEY] === SECRET_SIG) return stripSecrets(record.value);
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, stripSecrets(v)]));
  }
  return value;
}

export class EngineStack {
  private readonly host: ProviderHost;
  private readonly config: Record<string, string>;
  private readonly secretKeys: string[];
  private configured = false;
  /** URN → entry, in creation order. */
  private readonly entries = new Map<string, StateEntry>();

  constructor(host: ProviderHost, options: { config: Record<string, string>; secretKeys?: string[] }) {
    this.host = host;
    this.config = options.config;
    this.secretKeys = options.secretKeys ?? [];
  }

  /** Configure first, always, with secret values marked as the engine marks them. */
  private async ensureConfigured(): Promise<void> {
    if (this.configured) return;
    const args: Props = {};
    for (const [key, value] of Object.entries(this.config)) {
      args[key] = this.secretKeys.includes(key) ? { [SIG_KEY]: SECRET_SIG, value } : value;
    }
    await this.host.configure(args);
    this.configured = true;
  }

  state(): StateEntry[] {
    return structuredClone([...this.entries.values()]);
  }

  /** The state as a file would hold it, to search for leaked secrets. */
  serializedState(): string {
    return JSON.stringify(this.state());
  }

  /**
   * Check against the last inputs. The host answers Configure with acceptSecrets=false, so the
   * engine strips secret markers from every call it makes, Check included.
   */
  private check(resource: CapturedResource, old: StateEntry | undefined) {
    return this.host.check(resource.urn, old?.inputs ?? {}, stripSecrets(resource.inputs) as Props);
  }

  async preview(resources: CapturedResource[]): Promise<OperationResult> {
    await this.ensureConfigured();
    const steps = await Promise.all(
      resources.map(async (resource): Promise<Step> => {
        const { step, old, checked, failed } = await this.begin(resource);
        if (failed) return failed;
        if (!old) return step("create");
        const diff = await this.host.diff(old.id, resource.urn, old.outputs, checked.inputs);
        const kind: StepKind = diff.replaces.length
          ? "replace"
          : diff.changes === "some" || old.initErrors
            ? "update"
            : "same";
        return step(kind, { diff });
      }),
    );
    const declared = new Set(resources.map((r) => r.urn));
    for (const entry of this.entries.values()) {
      if (!declared.has(entry.urn)) steps.push({ name: entry.name, type: entry.type, kind: "delete", ms: 0 });
    }
    return { operation: "preview", steps, ok: steps.every((s) => s.kind !== "check-failed") };
  }

  async up(resources: CapturedResource[]): Promise<OperationResult> {
    await this.ensureConfigured();
    const steps = await Promise.all(resources.map((resource) => this.upOne(resource)));
    const declared = new Set(resources.map((r) => r.urn));
    for (const entry of [...this.entries.values()].reverse()) {
      if (declared.has(entry.urn)) continue;
      steps.push(await this.deleteOne(entry));
    }
    return {
      operation: "up",
      steps,
      ok: steps.every((s) => s.kind !== "failed" && s.kind !== "check-failed"),
    };
  }

  /** The resource's entry and checked inputs, with the step that ends it at check when they fail. */
  private async begin(resource: CapturedResource) {
    const step = stepsOf(resource);
    const old = this.entries.get(resource.urn);
    const checked = await this.check(resource, old);
    const failed = checked.failures.length ? step("check-failed", { failures: checked.failures }) : undefined;
    return { step, old, checked, failed };
  }

  private async upOne(resource: CapturedResource): Promise<Step> {
    const { step, old, checked, failed } = await this.begin(resource);
    if (failed) return failed;
    const inputs = stripSecrets(checked.inputs) as Props;
    try {
      if (!old) {
        await this.createEntry(resource, inputs);
        return step("create");
      }
      const diff = await this.host.diff(old.id, resource.urn, old.outputs, inputs);
      if (diff.replaces.length) {
        // Create the replacement first, then delete the old one (no deleteBeforeReplace here).
        this.entries.delete(resource.urn);
        try {
          await this.createEntry(resource, inputs);
        } catch (error) {
          if (!this.entries.has(resource.urn)) this.entries.set(resource.urn, old);
          throw error;
        }
        await this.host.delete(old.id, resource.urn, old.outputs);
        return step("replace", { diff });
      }
      // A resource with init errors is always updated, whatever the diff says.
      if (diff.changes !== "some" && !old.initErrors) {
        this.entries.set(resource.urn, { ...old, inputs });
        return step("same", { diff });
      }
      try {
        const { properties } = await this.host.update(old.id, resource.urn, old.outputs, inputs);
        this.entries.set(resource.urn, { ...old, inputs, outputs: properties, initErrors: undefined });
      } catch (error) {
        this.recordInitFailure(resource, inputs, error);
        throw error;
      }
      return step("update", { diff });
    } catch (error) {
      return step("failed", { error: (error as Error).message });
    }
  }

  private async createEntry(resource: CapturedResource, inputs: Props): Promise<void> {
    try {
      const { id, properties } = await this.host.create(resource.urn, inputs);
      this.entries.set(resource.urn, {
        urn: resource.urn,
        type: resource.type,
        name: resource.name,
        id,
        inputs,
        outputs: properties,
      });
    } catch (error) {
      this.recordInitFailure(resource, inputs, error);
      throw error;
    }
  }

  /** Created but failed to initialise: the engine keeps the resource, with its init errors. */
  private recordInitFailure(resource: CapturedResource, inputs: Props, error: unknown): void {
    const failure = error instanceof HostCallError ? error.initFailure : undefined;
    if (!failure) return;
    this.entries.set(resource.urn, {
      urn: resource.urn,
      type: resource.type,
      name: resource.name,
      id: failure.id,
      inputs,
      outputs: failure.properties,
      initErrors: failure.reasons,
    });
  }

  async refresh(): Promise<OperationResult> {
    await this.ensureConfigured();
    const steps = await Promise.all(
      [...this.entries.values()].map(async (entry): Promise<Step> => {
        const step = stepsOf(entry);
        try {
          const { id, properties } = await this.host.read(entry.id, entry.urn, entry.outputs);
          if (!id) {
            this.entries.delete(entry.urn);
            return step("gone");
          }
          this.entries.set(entry.urn, { ...entry, id, outputs: properties });
          // As the engine does after a refresh: compare the refreshed outputs with the inputs.
          const diff = await this.host.diff(id, entry.urn, properties, entry.inputs);
          return step(diff.changes === "some" ? "drift" : "read", { diff });
        } catch (error) {
          return step("failed", { error: (error as Error).message });
        }
      }),
    );
    return { operation: "refresh", steps, ok: steps.every((s) => s.kind !== "failed") };
  }

  async destroy(): Promise<OperationResult> {
    await this.ensureConfigured();
    const steps: Step[] = [];
    for (const entry of [...this.entries.values()].reverse()) steps.push(await this.deleteOne(entry));
    return { operation: "destroy", steps, ok: steps.every((s) => s.kind !== "failed") };
  }

  /** Delete with the `__provider` stored in state (destroy does not run the program). */
  private async deleteOne(entry: StateEntry): Promise<Step> {
    const step = stepsOf(entry);
    try {
      await this.host.delete(entry.id, entry.urn, entry.outputs);
      this.entries.delete(entry.urn);
      return step("delete");
    } catch (error) {
      return step("failed", { error: (error as Error).message });
    }
  }
}
