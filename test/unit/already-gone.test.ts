import assert from "node:assert/strict";
import { ApiError, ConflictError, createApiError, NotFoundError } from "../../src/api/errors";
import { isGone } from "../../src/provider/resourceErrors";

/*
 * What counts as "already gone" (README, ReversePrivateEndpointDeletion and Errors): one rule
 * for a 404 and a 400 alike: the message clearly says the service or endpoint was not found or
 * is an invalid id of one, and says nothing of the key, the organization or the request. A 404
 * whose message adds nothing to its status (none, a bare "Not found") is the path asked for.
 */

const answer = (status: 400 | 404) => (serverMessage: string | undefined) =>
  createApiError({ status, serverMessage, method: "DELETE", path: "/v1/x" });
const badRequest = answer(400);
const notFound = answer(404);

describe("already gone: the 404 and 400 messages that count", () => {
  const gone = [
    "Service not found",
    "  service not found  ",
    "service_id was not found",
    "Service-Id 3f2a is not found",
    "serviceid not found",
    "Endpoint not found",
    "endpoint_id not found",
    "Reverse private endpoint rpe-1 was not found",
    "reverse_private_endpoint_id not found",
    "reversePrivateEndpointId not found",
    "Not found: service",
    "not found - the endpoint rpe-1",
    "Invalid serviceId",
    "invalid service-id",
    "Invalid service",
    "Invalid reversePrivateEndpointId",
    "Invalid endpoint id 'x'",
    "  Invalid service id  ",
    "\tnot found: service\n",
  ];
  for (const message of gone) {
    it(`400 and 404 ${JSON.stringify(message)} are gone`, () => {
      assert.equal(isGone(badRequest(message)), true);
      assert.equal(isGone(notFound(message)), true);
    });
  }

  const notGone = [
    "Invalid API key id",
    "Service not found for this api_key",
    "Service not found: check the key-id",
    "Service not found (keyid k-1)",
    "Service not found: bad secret",
    "Service not found: token expired",
    "Service not found: no credentials",
    "Service not found: unauthorized",
    "Service not found or unauthorized",
    "Service not found: check your API keys",
    "Service not found: both tokens expired",
    "Service not found with these permissions",
    "Service not found: authentication failed",
    "Service not found in organization o-1",
    "Service not found in organisation o-1",
    "Service not found: org id o-1",
    "Service not found: org_id o-1",
    "Bad request: service not found",
    "Service not found: permission denied",
    "Service not found for your role",
    "Service not found for this apikey",
    "Service not found: check your keyids",
    "Service not found for this credential",
    "Service not found in your organizations",
    "Service not found: orgid o-1",
    "Organization not found",
    "Invalid services filter",
    "Invalid serviceIds",
    "Got invalid service id",
    "Thing not found: service",
    "Service deleted; item not found",
    "Service deleted. Item not found",
    "Service found",
    "Service not foundation",
    "Services not found",
    "Invalid id",
    "Route not found",
    "Cannot DELETE /v1/organizations/o-1/services/s-1",
    "404 page not found",
    "Organization o-1 not found",
  ];
  for (const message of notGone) {
    it(`400 and 404 ${JSON.stringify(message)} are not gone`, () => {
      assert.equal(isGone(badRequest(message)), false);
      assert.equal(isGone(notFound(message)), false);
    });
  }

  it("a message that adds nothing to the status: a 404 is the path asked for, gone; a 400 is not", () => {
    for (const message of [undefined, "", "   ", "Not found", "NOT_FOUND", "Not Found."]) {
      assert.equal(isGone(notFound(message)), true, JSON.stringify(message));
      assert.equal(isGone(badRequest(message)), false, JSON.stringify(message));
    }
  });

  it("read and create count only the service: an endpoint message is not the service gone", () => {
    assert.equal(isGone(badRequest("Endpoint not found"), ["service"]), false);
    assert.equal(isGone(badRequest("Invalid endpoint id"), ["service"]), false);
    assert.equal(isGone(badRequest("Service not found"), ["service"]), true);
    assert.equal(isGone(badRequest("Service not found"), ["endpoint"]), false);
    assert.equal(isGone(badRequest("Endpoint not found")), true, "both subjects by default");
  });

  it("read and create count only the service, for a 404 too", () => {
    assert.equal(isGone(notFound("Reverse private endpoint not found"), ["service"]), false);
    assert.equal(isGone(notFound("Service not found"), ["service"]), true);
  });

  it("no status but 404 and 400 is gone, whatever its message", () => {
    assert.ok(notFound(undefined) instanceof NotFoundError);
    for (const status of [401, 403, 409, 422, 429, 500]) {
      const error = createApiError({
        status,
        serverMessage: "Service not found",
        method: "GET",
        path: "/v1/x",
      });
      assert.equal(isGone(error), false, String(status));
    }
    assert.ok(createApiError({ status: 409, method: "GET", path: "/v1/x" }) instanceof ConflictError);
    assert.equal(
      isGone(new ApiError({ status: undefined, message: "Service not found", method: "GET", path: "/v1/x" })),
      false,
    );
    assert.equal(isGone(new Error("Service not found")), false);
    assert.equal(isGone(undefined), false);
  });
});
