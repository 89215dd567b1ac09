// Arbitraries of the faults the suite injects, in two pools: the transient faults the client is
// built to ride out, and every hostile behaviour a server can show (storms, dropped connections,
// answers lost after being applied, malformed, oversized or echoing bodies, stalls, trickles).
import fc from "fast-check";
import type { EchoForm, EchoPlace, Fault, RateLimitHeaderForm } from "../../src/emulator";

export const HEADER_FORMS: RateLimitHeaderForm[] = [
  "both",
  "retry-after-seconds",
  "retry-after-date",
  "reset-delta",
  "reset-epoch-seconds",
  "reset-epoch-ms",
  "none",
];
export const ECHO_PLACES: EchoPlace[] = [
  "header",
  "requestId",
  "non-json-body",
  "long-body",
  "service-field",
];
export const ECHO_FORMS: EchoForm[] = [
  "raw",
  "authorization",
  "base64",
  "json-escaped",
  "url-encoded",
  "escapes",
];

type Route = "getService" | "changeState" | "any";
const route = (): fc.Arbitrary<Route> => fc.constantFrom<Route>("getService", "changeState", "any");
const few = () => fc.integer({ min: 1, max: 3 });

const serverError = () =>
  fc.record({ route: route(), status: fc.constantFrom(500, 502, 503, 504), times: few() });
/** 429s whose wait a client reads in delta seconds: the forms every client handles. */
const plainStorm = () =>
  fc.record({
    route: route(),
    status: fc.constant(429),
    retryAfterSeconds: fc.constant(0),
    rateLimitHeaders: fc.constantFrom<RateLimitHeaderForm>("both", "retry-after-seconds", "reset-delta"),
    times: few(),
  });
const conflict = () =>
  fc.record({ route: fc.constant<Route>("changeState"), status: fc.constant(409), times: few() });
const dropBefore = () => fc.record({ route: route(), drop: fc.constant<"before">("before"), times: few() });
const delay = () => fc.record({ route: route(), delayMs: fc.integer({ min: 5, max: 150 }) });
const lostCommand = () => fc.record({ ignoreCommand: fc.constant(true) });
/** Every PATCH answer lost after the server applied it (a flaky balancer), GETs working. */
const lostAnswers = () =>
  fc.record({
    route: fc.constant<Route>("changeState"),
    drop: fc.constant<"after">("after"),
    times: fc.constant(Infinity),
  });
const flipBack = () => fc.record({ flipBackAfterMs: fc.integer({ min: 20, max: 200 }), times: few() });
const malformedRead = () =>
  fc.record({
    route: fc.constant<Route>("getService"),
    malformed: fc.constantFrom<"not-json" | "wrong-shape">("not-json", "wrong-shape"),
  });

/** Faults the README promises to ride out, and none of the hostile ones. */
export function transientFault(): fc.Arbitrary<Fault> {
  return fc.oneof(
    serverError(),
    plainStorm(),
    conflict(),
    dropBefore(),
    delay(),
    lostCommand(),
    lostAnswers(),
    flipBack(),
    malformedRead(),
  );
}

const anyStorm = () =>
  fc.record({
    route: route(),
    status: fc.constant(429),
    retryAfterSeconds: fc.constantFrom(0, 0, 1),
    rateLimitHeaders: fc.constantFrom(...HEADER_FORMS),
    times: fc.integer({ min: 1, max: 12 }),
  });
const dropAfter = () =>
  fc.record({ route: route(), drop: fc.constant<"after">("after"), times: fc.integer({ min: 1, max: 9 }) });
const flipBackLost = () =>
  fc.record({ flipBackAfterMs: fc.integer({ min: 20, max: 120 }), drop: fc.constant<"after">("after") });
const stall = () =>
  fc.record({
    route: route(),
    stall: fc.constantFrom<true | "after">(true, "after"),
    times: fc.integer({ min: 1, max: 2 }),
  });
const trickle = () =>
  fc.record({
    route: route(),
    trickleMs: fc.integer({ min: 20, max: 80 }),
    trickleBytes: fc.integer({ min: 1, max: 4 }),
  });
const malformed = () =>
  fc.record({
    route: route(),
    malformed: fc.constantFrom<"not-json" | "wrong-shape">("not-json", "wrong-shape"),
  });
const oversize = () =>
  fc.record({
    route: route(),
    oversizeBytes: fc.constantFrom(64 * 1024, 2 * 1024 * 1024),
    status: fc.option(fc.constantFrom(500, 503), { nil: undefined }),
  });
/** A 200 nesting 50,000 levels deep, with a string escape: unusable, and no walk may overflow on it. */
const deepBody = (route: () => fc.Arbitrary<Fault["route"]>) =>
  fc.record({ route: route(), malformed: fc.constant<"deep">("deep") });
const badRequest = () =>
  fc.record({
    route: route(),
    status: fc.constant(400),
    message: fc.constantFrom("Invalid API key id", "Bad request: malformed body"),
  });
export function echo(): fc.Arbitrary<Fault> {
  return fc.oneof(
    fc.record({
      route: route(),
      echoSecret: fc.constantFrom<EchoPlace>("header", "requestId"),
      echoForm: fc.constantFrom(...ECHO_FORMS),
      status: fc.option(fc.constantFrom(400, 503), { nil: undefined }),
    }),
    fc.record({
      route: route(),
      echoSecret: fc.constantFrom<EchoPlace>("non-json-body", "long-body"),
      echoForm: fc.constantFrom(...ECHO_FORMS),
      status: fc.constantFrom(400, 502),
    }),
    fc.record({
      route: fc.constantFrom<Route>("getService", "changeState"),
      echoSecret: fc.constant<EchoPlace>("service-field"),
      echoForm: fc.constantFrom(...ECHO_FORMS),
    }),
  );
}

/**
 * Every hostile fault kind on the service routes, but those that hold a request for long
 * (stalls, trickled bodies): a client without a total deadline per attempt spends 30 s in each,
 * so they have a property of their own (`slowFault`).
 */
export function hostileFault(): fc.Arbitrary<Fault> {
  return fc.oneof(
    transientFault(),
    anyStorm(),
    dropAfter(),
    flipBackLost(),
    malformed(),
    oversize(),
    badRequest(),
    echo(),
    deepBody(route),
  );
}

/** What tests deadlines: stalls, trickles, and 429s asking for waits in every header form. */
export function slowFault(): fc.Arbitrary<Fault> {
  return fc.oneof(stall(), trickle(), anyStorm(), delay());
}

/** Faults on the endpoint routes: DELETE and the GET that create and read make. */
export function endpointFault(hostile: boolean): fc.Arbitrary<Fault> {
  const r = () => fc.constantFrom<Fault["route"]>("deleteEndpoint", "getService", "any");
  const transient = fc.oneof(
    fc.record({ route: r(), status: fc.constantFrom(500, 502, 503, 504), times: few() }),
    fc.record({
      route: r(),
      status: fc.constant(429),
      retryAfterSeconds: fc.constant(0),
      rateLimitHeaders: fc.constantFrom<RateLimitHeaderForm>("both", "retry-after-seconds", "reset-delta"),
      times: few(),
    }),
    fc.record({ route: r(), drop: fc.constantFrom<"before" | "after">("before", "after") }),
    fc.record({ route: r(), delayMs: fc.integer({ min: 5, max: 100 }) }),
  );
  if (!hostile) return transient;
  return fc.oneof(
    transient,
    fc.record({
      route: r(),
      status: fc.constant(429),
      retryAfterSeconds: fc.constantFrom(0, 1),
      rateLimitHeaders: fc.constantFrom(...HEADER_FORMS),
      times: fc.integer({ min: 1, max: 10 }),
    }),
    fc.record({ route: fc.constant<Fault["route"]>("deleteEndpoint"), noContent: fc.constant(true) }),
    fc.record({
      route: r(),
      status: fc.constant(400),
      message: fc.constantFrom("Invalid API key id", "Invalid organization id", "Bad request"),
    }),
    fc.record({
      route: r(),
      malformed: fc.constantFrom<"not-json" | "wrong-shape">("not-json", "wrong-shape"),
    }),
    fc.record({
      route: r(),
      oversizeBytes: fc.constant(256 * 1024),
      status: fc.option(fc.constant(503), { nil: undefined }),
    }),
    echo().map((fault) =>
      fault.echoSecret === "service-field" ? { ...fault, route: "getService" as const } : fault,
    ),
    deepBody(r),
  );
}

/** Out-of-band states a service can be flipped to (terminal and unknown ones included). */
export const FLIP_STATES = [
  "running",
  "stopped",
  "idle",
  "degraded",
  "starting",
  "stopping",
  "provisioning",
  "partially_running",
  "failed",
  "terminated",
  "softdeleted",
  "upgrading",
] as const;

/**
 * The watchdog of one destroy: 10 s, plus what the 429s ask for (each up to 10 times a wait of up
 * to 1 s, which the client honours, rounded up to the next second, since the header may say "1").
 * Past it the run fails as stuck.
 */
export function deleteBoundMs(faults: Fault[]): number {
  let ms = 10_000;
  for (const fault of faults)
    if (fault.status === 429) ms += (fault.times ?? 1) * ((fault.retryAfterSeconds ?? 0) + 1) * 1000;
  return ms;
}

/** The states a resource's service starts a run in. */
export const FIRST_STATES = ["running", "stopped", "idle", "degraded", "starting", "stopping"];
