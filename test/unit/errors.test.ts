import assert from "node:assert/strict";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  createApiError,
  DbcloudError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  UnprocessableError,
} from "../../src/api/errors";

/* The error classes: the class for each status, and the messages and fields when parts are missing. */

describe("error classes", () => {
  it("every error the package throws is a DbcloudError; a ResponseValidationError is not an ApiError", () => {
    const where = { method: "GET", path: "/v1/x" };
    const errors = [
      createApiError({ status: 404, ...where }),
      new ApiConnectionError({ status: undefined, message: "m", ...where }),
      new ResponseValidationError({ status: 200, issues: ["x: y"], ...where }),
      new ConfigurationError(["apiUrl: missing"]),
    ];
    for (const error of errors)
      assert.ok(error instanceof DbcloudError && error instanceof Error, error.name);
    assert.deepEqual(
      errors.map((error) => [error.name, error instanceof ApiError]),
      [
        ["NotFoundError", true],
        ["ApiConnectionError", true],
        ["ResponseValidationError", false],
        ["ConfigurationError", false],
      ],
    );
  });
});

describe("error messages and fields", () => {
  it("without a server message or request id, the message is status and where", () => {
    const error = createApiError({ status: 404, method: "GET", path: "/v1/x" });
    assert.equal(error.message, "404 (GET /v1/x)");
    assert.equal(error.serverMessage, undefined);
    assert.equal(error.requestId, undefined);
    assert.deepEqual(error.headers, {});
    assert.equal(error.possiblyApplied, false);
    assert.equal("cause" in error, false);
    assert.equal(error.method, "GET");
    assert.equal(error.path, "/v1/x");
  });

  it("an empty server message adds nothing; kept headers are kept", () => {
    const error = createApiError({
      status: 400,
      serverMessage: "",
      method: "DELETE",
      path: "/v1/y",
      headers: { "x-request-id": "r" },
    });
    assert.equal(error.message, "400 (DELETE /v1/y)");
    assert.deepEqual(error.headers, { "x-request-id": "r" });
  });

  it("an error takes only its listed fields from what it is built of", () => {
    const extra = { body: "raw answer", authorization: "Basic c2VjcmV0" };
    const api = createApiError({ status: 500, method: "GET", path: "/v1/x", ...extra });
    const invalid = new ResponseValidationError({
      status: 200,
      method: "GET",
      path: "/v1/x",
      issues: [],
      ...extra,
    });
    for (const error of [api, invalid]) {
      assert.equal("body" in error, false);
      assert.equal("authorization" in error, false);
      assert.equal(JSON.stringify(error).includes("c2VjcmV0"), false);
    }
  });

  it("a response that does not fit lists its problems, with the request id when there is one", () => {
    const withId = new ResponseValidationError({
      status: 200,
      requestId: "r-7",
      method: "GET",
      path: "/v1/z",
      issues: ["result.state: expected string", "status: required"],
    });
    assert.equal(
      withId.message,
      "Unexpected response to GET /v1/z (status 200, requestId r-7): result.state: expected string; status: required",
    );
    assert.equal(withId.name, "ResponseValidationError");
    assert.equal(withId.possiblyApplied, false);
    assert.deepEqual(withId.headers, {});
    assert.ok(!(withId instanceof ApiError), "not an HTTP error: the request worked");
    const withoutId = new ResponseValidationError({
      status: 204,
      method: "PATCH",
      path: "/p",
      issues: ["a"],
    });
    assert.equal(withoutId.message, "Unexpected response to PATCH /p (status 204): a");
    assert.equal(withoutId.status, 204);
  });

  it("one configuration problem is the message; several are listed", () => {
    assert.equal(new ConfigurationError(["only one"]).message, "only one");
    const several = new ConfigurationError(["first", "second"]);
    assert.equal(several.message, "Invalid configuration:\n- first\n- second");
    assert.equal(several.name, "ConfigurationError");
    assert.deepEqual(several.problems, ["first", "second"]);
  });
});

describe("error factory", () => {
  const table: [number, typeof ApiError][] = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableError],
    [424, UnprocessableError],
    [429, RateLimitError],
    [500, ServerError],
    [502, ServerError],
    [503, ServerError],
    [599, ServerError],
    [499, ApiError],
    [423, ApiError],
    [418, ApiError],
    [408, ApiError],
  ];
  for (const [status, ErrorClass] of table) {
    it(`${status} → ${ErrorClass.name}`, () => {
      const error = createApiError({
        status,
        serverMessage: "boom",
        requestId: "req-1",
        method: "GET",
        path: "/v1/x",
      });
      assert.equal(error.constructor, ErrorClass);
      assert.ok(error instanceof ApiError && error instanceof Error);
      assert.equal(error.name, ErrorClass.name);
      assert.equal(error.status, status);
      assert.equal(error.requestId, "req-1");
      assert.equal(error.serverMessage, "boom");
      assert.equal(error.message, `${status} boom (GET /v1/x, requestId req-1)`);
      assert.ok(error.stack?.includes(ErrorClass.name));
    });
  }

  it("connection and timeout errors are ApiErrors without a status", () => {
    for (const ErrorClass of [ApiConnectionError, ApiTimeoutError]) {
      const error = new ErrorClass({
        status: undefined,
        message: "m",
        method: "GET",
        path: "/p",
        cause: new Error("c"),
      });
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, undefined);
      assert.equal((error.cause as Error).message, "c");
    }
  });
});
