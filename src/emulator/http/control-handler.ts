// The control surface under /_emulator/: the programmatic API over HTTP, for tests in another
// process and for people driving the CLI's emulator with curl. No auth: it is a local test tool.
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseFault } from "../input/fault";
import { BodyTooLargeError, readBody, sendJson } from "./io";
import { EmulatorInputError, isPlainObject, readOrThrow } from "../input/errors";
import { parseSeedService, readRateLimit, readScheduledState, readTransitions } from "../input/seed";
import { readMilliseconds, readNonEmptyString, reportUnknownKeys } from "../input/values";
import { readWarehouseRules } from "../input/warehouse-rules";
import type { Emulator, ServiceView, TransitionTimes, WarehouseRules } from "../types";

export const CONTROL_PREFIX = "/_emulator/";

/** What the control surface shows of a service: more than the API does. */
export interface ServiceDescription {
  organizationId: string;
  reversePrivateEndpointIds: string[];
  service: ServiceView;
}

export interface ControlTarget extends Emulator {
  describeService(serviceId: string): ServiceDescription | undefined;
  currentTransitions(): TransitionTimes;
  currentWarehouseRules(): WarehouseRules;
}

type ControlAnswer = { status: number; body: unknown };

export async function handleControlRequest(
  target: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  let answer: ControlAnswer;
  try {
    const body = await readBody(req);
    answer = route(target, (req.method ?? "GET").toUpperCase(), pathname.slice(CONTROL_PREFIX.length), body);
  } catch (error) {
    if (error instanceof EmulatorInputError) {
      answer = { status: error.status, body: { error: error.message, issues: error.issues } };
    } else if (error instanceof BodyTooLargeError) {
      answer = { status: 413, body: { error: error.message } };
    } else {
      throw error;
    }
  }
  sendJson(res, answer.status, answer.body);
}

function route(target: ControlTarget, method: string, path: string, body: Buffer): ControlAnswer {
  const segments = path.split("/").map(decodeSegment);
  const [resource, serviceId, sub] = segments;
  // Longer paths than resource/id/sub name nothing here.
  const key =
    segments.length > 3
      ? "none"
      : `${method} ${resource}${serviceId === undefined ? "" : "/:id"}${sub === undefined ? "" : `/${sub}`}`;
  const noRoute = { status: 404, body: { error: `No control route for ${method} ${CONTROL_PREFIX}${path}` } };
  return serviceRoute(target, key, serviceId, body) ?? emulatorRoute(target, key, body) ?? noRoute;
}

/** The routes under services/: what tests arrange a service with. None when the key names none. */
function serviceRoute(
  target: ControlTarget,
  key: string,
  serviceId: string,
  body: Buffer,
): ControlAnswer | undefined {
  switch (key) {
    case "GET services/:id":
      return { status: 200, body: describeOrThrow(target, serviceId) };
    case "POST services": {
      const added = target.addService(parseSeedService(parseJson(body), "service"));
      return { status: 201, body: describeOrThrow(target, added.id) };
    }
    case "DELETE services/:id":
      target.removeService(serviceId);
      return { status: 200, body: { removed: serviceId } };
    case "POST services/:id/state": {
      const { state, then } = readStateChange(parseJson(body));
      target.setState(serviceId, state, then);
      return { status: 200, body: describeOrThrow(target, serviceId) };
    }
    case "POST services/:id/endpoints": {
      const endpointId = readEndpointId(parseJson(body));
      target.addEndpoint(serviceId, endpointId);
      return { status: 201, body: describeOrThrow(target, serviceId) };
    }
    default:
      return undefined;
  }
}

/** The routes over the whole emulator: faults, the request log, settings. None when the key names none. */
function emulatorRoute(target: ControlTarget, key: string, body: Buffer): ControlAnswer | undefined {
  switch (key) {
    case "POST faults":
      target.injectFault(parseFault(parseJson(body)));
      return { status: 201, body: { injected: true } };
    case "DELETE faults":
      target.clearFaults();
      return { status: 200, body: { cleared: "faults" } };
    case "GET requests":
      return { status: 200, body: { requests: target.requests } };
    case "DELETE requests":
      target.clearRequests();
      return { status: 200, body: { cleared: "requests" } };
    case "PUT rate-limit": {
      const rateLimit = readOrThrow((issues) => readRateLimit(parseJson(body), "rateLimit", issues));
      target.setRateLimit(rateLimit);
      return { status: 200, body: { rateLimit } };
    }
    case "PUT visibility-lag": {
      const input = parseJson(body);
      const ms = readOrThrow((issues) =>
        readMilliseconds(isPlainObject(input) ? input.ms : input, "ms", issues),
      );
      target.setVisibilityLag(ms);
      return { status: 200, body: { visibilityLagMs: ms } };
    }
    case "PUT transitions": {
      target.setTransitions(readOrThrow((issues) => readTransitions(parseJson(body), "transitions", issues)));
      return { status: 200, body: { transitions: target.currentTransitions() } };
    }
    case "PUT warehouse-rules": {
      const input = parseJson(body);
      target.setWarehouseRules(readOrThrow((issues) => readWarehouseRules(input, "warehouseRules", issues)));
      return { status: 200, body: { warehouseRules: target.currentWarehouseRules() } };
    }
    default:
      return undefined;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new EmulatorInputError([`path segment "${segment}" has malformed percent-encoding`]);
  }
}

function describeOrThrow(target: ControlTarget, serviceId: string): ServiceDescription {
  const description = target.describeService(serviceId);
  if (description === undefined) throw new EmulatorInputError([`service ${serviceId} does not exist`], 404);
  return description;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new EmulatorInputError([`body is not JSON: ${(error as Error).message}`]);
  }
}

function readStateChange(input: unknown) {
  return readOrThrow((issues) => {
    if (!isPlainObject(input)) {
      issues.add("body", 'must be {"state": string, "then"?: {"state": string, "afterMs": ms}}');
      return undefined;
    }
    reportUnknownKeys(input, new Set(["state", "then"]), "body", issues);
    const state = readNonEmptyString(input.state, "state", issues);
    const then = input.then === undefined ? undefined : readScheduledState(input.then, "then", issues);
    return state === undefined ? undefined : { state, then };
  });
}

function readEndpointId(input: unknown): string {
  return readOrThrow((issues) =>
    readNonEmptyString(isPlainObject(input) ? input.endpointId : undefined, "endpointId", issues),
  );
}
