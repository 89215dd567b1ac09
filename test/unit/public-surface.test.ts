import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import * as root from "../../src";
import * as providerSubpath from "../../src/provider";

/*
 * What users and their stacks rely on. Every stack's state stores provider text that calls
 * `require("pulumi-dbcloud/provider").<name>(...)`, and destroy or refresh runs that stored text
 * with whatever version is installed then: a renamed or removed function there breaks existing
 * stacks. Adding a name is fine (add it here too); renaming or removing one is a major version.
 */
const PROVIDER_SUBPATH_FUNCTIONS = [
  "configure",
  "reversePrivateEndpointDeletionCheck",
  "reversePrivateEndpointDeletionCreate",
  "reversePrivateEndpointDeletionDelete",
  "reversePrivateEndpointDeletionDiff",
  "reversePrivateEndpointDeletionRead",
  "reversePrivateEndpointDeletionUpdate",
  "serviceRunStateCheck",
  "serviceRunStateCreate",
  "serviceRunStateDelete",
  "serviceRunStateDiff",
  "serviceRunStateRead",
  "serviceRunStateUpdate",
];

describe("public surface", () => {
  it("pulumi-dbcloud/provider exports exactly the functions stored stacks call", () => {
    assert.deepEqual(Object.keys(providerSubpath).sort(), [...PROVIDER_SUBPATH_FUNCTIONS].sort());
    for (const name of PROVIDER_SUBPATH_FUNCTIONS) {
      assert.equal(typeof (providerSubpath as Record<string, unknown>)[name], "function", name);
    }
  });

  it("the package root exports the resources, providers, getService, client, errors and documented constants only", () => {
    assert.deepEqual(Object.keys(root).sort(), [
      "ApiCancelledError",
      "ApiClient",
      "ApiConnectionError",
      "ApiError",
      "ApiTimeoutError",
      "AuthenticationError",
      "BadRequestError",
      "ConfigurationError",
      "ConflictError",
      "DEFAULT_RATE_LIMIT",
      "DEFAULT_RETRY_POLICY",
      "DEFAULT_TIMEOUTS",
      "DEFAULT_TIMEOUT_SECONDS",
      "DbcloudError",
      "InvalidInputError",
      "KNOWN_STATES",
      "MAX_TIMEOUT_SECONDS",
      "NotFoundError",
      "PACKAGE_VERSION",
      "PermissionDeniedError",
      "RateLimitError",
      "ResponseValidationError",
      "ReversePrivateEndpointDeletion",
      "ServerError",
      "ServiceRunState",
      "UnprocessableError",
      "getService",
      "getServiceOutput",
      "reversePrivateEndpointDeletionProvider",
      "serviceRunStateProvider",
    ]);
  });

  it("the exported defaults are frozen: a program cannot change them for every other client", () => {
    for (const defaults of [root.DEFAULT_TIMEOUTS, root.DEFAULT_RETRY_POLICY, root.DEFAULT_RATE_LIMIT]) {
      assert.ok(Object.isFrozen(defaults));
    }
  });

  it("loading the package root loads no emulator code (the built package, in a fresh process)", () => {
    const loaded = execFileSync(
      process.execPath,
      ["-e", 'require("./dist/index.js"); console.log(JSON.stringify(Object.keys(require.cache)))'],
      { cwd: join(__dirname, "..", ".."), encoding: "utf8" },
    );
    const modules = JSON.parse(loaded) as string[];
    assert.ok(
      modules.some((path) => /[\\/]dist[\\/]api[\\/]client\.js$/.test(path)),
      "sanity: the client loaded",
    );
    assert.deepEqual(
      modules.filter((path) => /[\\/]dist[\\/]emulator[\\/]/.test(path)),
      [],
    );
  });

  it("error classes keep their names and fields as plain subclasses", () => {
    const error = new root.NotFoundError({
      status: 404,
      message: "404 gone (GET /v1/x)",
      method: "GET",
      path: "/v1/x",
      cause: new Error("inner"),
    });
    assert.ok(error instanceof root.ApiError && error instanceof Error);
    assert.equal(error.name, "NotFoundError");
    assert.equal(error.message, "404 gone (GET /v1/x)");
    assert.equal((error.cause as Error).message, "inner");
    assert.match(String(error.stack), /^NotFoundError: 404 gone/);
  });

  it("PACKAGE_VERSION is package.json's (it is sent in the User-Agent)", () => {
    assert.equal(root.PACKAGE_VERSION, require("../../package.json").version);
  });
});
