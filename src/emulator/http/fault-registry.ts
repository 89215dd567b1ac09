// Injected faults, matched against each API request in the order they were injected.
import type { ApiRoute, Fault } from "../types";

interface ArmedFault {
  fault: Fault;
  remaining: number;
}

export class FaultRegistry {
  private armed: ArmedFault[] = [];

  constructor(private readonly random: () => number) {}

  /** The fault must already be validated. */
  add(fault: Fault): void {
    this.armed.push({ fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.armed = [];
  }

  /**
   * The first fault that matches the request and fires (per its probability), consuming one of its
   * uses; spent faults are forgotten.
   */
  take(route: ApiRoute, method: string): Fault | undefined {
    for (const entry of this.armed) {
      if (!matches(entry.fault, route, method)) continue;
      const probability = entry.fault.probability ?? 1;
      if (probability < 1 && this.random() >= probability) continue;
      entry.remaining -= 1;
      if (entry.remaining <= 0) this.armed = this.armed.filter((other) => other !== entry);
      return entry.fault;
    }
    return undefined;
  }
}

function matches(fault: Fault, route: ApiRoute, method: string): boolean {
  if (fault.route !== undefined && fault.route !== "any" && fault.route !== route) return false;
  if (fault.method !== undefined && fault.method !== method.toUpperCase()) return false;
  // A lost command only makes sense for a state change, whatever route the fault names.
  if ((fault.ignoreCommand || fault.flipBackAfterMs !== undefined) && route !== "changeState") return false;
  if (fault.noContent && route !== "deleteEndpoint") return false;
  return true;
}

/** A short description of the fault for the request log. */
export function describeFault(fault: Fault): string {
  const parts: string[] = [];
  if (fault.delayMs !== undefined) parts.push(`delay ${fault.delayMs}ms`);
  if (fault.status !== undefined) parts.push(`status ${fault.status}`);
  if (fault.drop !== undefined) parts.push(`drop ${fault.drop}`);
  if (fault.malformed !== undefined) parts.push(`malformed ${fault.malformed}`);
  if (fault.ignoreCommand) parts.push("ignoreCommand");
  if (fault.headers !== undefined) parts.push(`headers ${Object.keys(fault.headers).join(",")}`);
  if (fault.message !== undefined) parts.push(`message ${JSON.stringify(fault.message)}`);
  if (fault.rateLimitHeaders !== undefined) parts.push(`rateLimitHeaders ${fault.rateLimitHeaders}`);
  if (fault.stall !== undefined && fault.stall !== false)
    parts.push(`stall ${fault.stall === "after" ? "after" : "before"}`);
  if (fault.trickleMs !== undefined) parts.push(`trickle ${fault.trickleBytes ?? 1}B/${fault.trickleMs}ms`);
  if (fault.oversizeBytes !== undefined) parts.push(`oversize ${fault.oversizeBytes}B`);
  if (fault.noContent) parts.push("noContent");
  if (fault.echoSecret !== undefined) parts.push(`echo ${fault.echoForm ?? "raw"} in ${fault.echoSecret}`);
  if (fault.flipBackAfterMs !== undefined) parts.push(`flipBack ${fault.flipBackAfterMs}ms`);
  return parts.join(", ");
}
