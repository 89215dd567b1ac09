import assert from "node:assert/strict";
import { ApiError, ConflictError, createApiError, NotFoundError } from "../../src/api/errors";
import { isGone } from "../../src/provider/outcomes";

/*
 * What counts as "already gone" (README, ReversePrivateEndpointDeletion and Errors): a 404
 * always; a 400 only when its message clearly says the service or endpoint was not found or is
 * an invalid id of one, and says nothing of the key, the organization or the request.
 */

const badRequest = (serverMessage: string | undefined) =>
  createApiError({ status: 400, serverMessage, method: "DELETE", path: "/v1/x" });

describe("already gone: the 400 messages that count", () => {
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
    it(`400 ${JSON.stringify(message)} is gone`, () => assert.equal(isGone(badRequest(message)), true));
  }

  const notGone = [
    "",
    "   ",
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
    "Not found",
    "Invalid id",
  ];
  for (const message of notGone) {
    it(`400 ${JSON.stringify(message)} is not gone`, () => assert.equal(isGone(badRequest(message)), false));
  }

  it("a 400 without a server message is not gone", () => assert.equal(isGone(badRequest(undefined)), false));

  it("read and create count only the service: an endpoint message is not the service gone", () => {
    assert.equal(isGone(badRequest("Endpoint not found"), ["service"]), false);
    assert.equal(isGone(badRequest("Invalid endpoint id"), ["service"]), false);
    assert.equal(isGone(badRequest("Service not found"), ["service"]), true);
    assert.equal(isGone(badRequest("Service not found"), ["endpoint"]), false);
    assert.equal(isGone(badRequest("Endpoint not found")), true, "both subjects by default");
  });

  it("any 404 is gone; no other error is", () => {
    assert.equal(isGone(createApiError({ status: 404, method: "GET", path: "/v1/x" })), true);
    assert.ok(createApiError({ status: 404, method: "GET", path: "/v1/x" }) instanceof NotFoundError);
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
