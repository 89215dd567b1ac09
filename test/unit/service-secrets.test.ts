import assert from "node:assert/strict";
import { holdsSecret } from "../../src/api/redact";

/*
 * The walk over a service read that decides whether getServiceOutput's result is secret:
 * data from the network, walked without recursion.
 */

describe("getService: the walk for credential-like fields", () => {
  it("recognises credential-like fields the API may add, at any depth, and ignores unset ones", () => {
    assert.equal(holdsSecret({ encryptionKey: "k" }), true);
    assert.equal(holdsSecret({ encryptionKey: null, iamRole: "arn:role" }), false);
    assert.equal(holdsSecret({ encryptionKey: "" }), false);
    assert.equal(holdsSecret({ endpoints: [{ host: "h", password: "p" }] }), true);
    assert.equal(holdsSecret({ backup: { accessToken: "t" } }), true);
    assert.equal(holdsSecret({ clientSecret: null, privateKey: undefined }), false);
  });

  it("walks a value nested a hundred thousand levels deep without overflowing the stack", () => {
    const nest = (bottom: unknown, levels: number) => {
      let value = bottom;
      for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
      return value;
    };
    assert.equal(holdsSecret({ futureField: nest({ password: "p" }, 100_000) }), true);
    assert.equal(holdsSecret({ futureField: nest({ password: null }, 100_000) }), false);
  });
});
