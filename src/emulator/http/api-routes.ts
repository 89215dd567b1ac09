// The three operations' paths. Matching is by path first, then method, so that a wrong method on
// a known path is a 405 (with Allow) rather than an unhelpful 404.

export type OperationRoute = "getService" | "changeState" | "deleteEndpoint";

export interface PathParams {
  organizationId: string;
  serviceId: string;
  endpointId?: string;
}

export type PathMatch =
  | { kind: "operation"; route: OperationRoute; method: string; params: PathParams }
  | { kind: "no-route" }
  | { kind: "bad-encoding"; segment: string };

interface RouteShape {
  route: OperationRoute;
  method: string;
  /** Literal segments; null where a parameter goes. */
  segments: ReadonlyArray<string | null>;
}

const ROUTES: readonly RouteShape[] = [
  { route: "getService", method: "GET", segments: ["v1", "organizations", null, "services", null] },
  {
    route: "changeState",
    method: "PATCH",
    segments: ["v1", "organizations", null, "services", null, "state"],
  },
  {
    route: "deleteEndpoint",
    method: "DELETE",
    segments: ["v1", "organizations", null, "services", null, "pipesReversePrivateEndpoints", null],
  },
];

export function matchApiPath(pathname: string): PathMatch {
  const segments = pathname.split("/").slice(1);
  const shape = ROUTES.find(
    (candidate) =>
      candidate.segments.length === segments.length &&
      candidate.segments.every((literal, index) => literal === null || literal === segments[index]),
  );
  if (shape === undefined) return { kind: "no-route" };
  const values: string[] = [];
  for (const [index, literal] of shape.segments.entries()) {
    if (literal !== null) continue;
    try {
      values.push(decodeURIComponent(segments[index]));
    } catch {
      return { kind: "bad-encoding", segment: segments[index] };
    }
  }
  const [organizationId, serviceId, endpointId] = values;
  // An empty endpoint id names nothing: that path has no operation.
  if (shape.route === "deleteEndpoint" && endpointId === "") return { kind: "no-route" };
  return {
    kind: "operation",
    route: shape.route,
    method: shape.method,
    params: { organizationId, serviceId, endpointId },
  };
}
