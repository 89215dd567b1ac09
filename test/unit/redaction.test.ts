import assert from "node:assert/strict";
import { inspect } from "node:util";
import { ApiClient } from "../../src/api/client";
import {
  basicAuthorization,
  REDACTED,
  redactDeep,
  redactParsed,
  redactSecrets,
  secretForms,
  truncate,
} from "../../src/api/redact";

/* Redaction, edge by edge: every form of the secret, Authorization values, and parsed bodies. */

describe("redaction", () => {
  it("the Basic token is base64 of id:secret", () => {
    assert.equal(basicAuthorization("id", "secret"), `Basic ${Buffer.from("id:secret").toString("base64")}`);
  });

  it("every form of the secret and of the token is listed, longest first, short ones never", () => {
    const secret = 'se+cr/et "x"?';
    const token = Buffer.from(`id:${secret}`).toString("base64");
    const forms = secretForms("id", secret);
    for (const value of [secret, token, Buffer.from(secret).toString("base64")]) {
      for (const form of [
        value,
        JSON.stringify(value).slice(1, -1),
        encodeURIComponent(value),
        new URLSearchParams({ v: value }).toString().slice(2),
        Buffer.from(value).toString("base64url"),
      ]) {
        assert.ok(forms.includes(form), form);
      }
    }
    assert.deepEqual(
      forms,
      [...forms].sort((a, b) => b.length - a.length),
    );
    assert.ok(secretForms("i", "abc").every((form) => form.length >= 6));
    assert.ok(
      secretForms("i", "abcdef").includes("abcdef"),
      "a secret of exactly 6 characters is searched for",
    );
    assert.ok(!secretForms("i", "abc").includes("abc"));
  });

  it("Authorization values of any scheme and quoting are masked, the scheme kept", () => {
    assert.equal(redactSecrets("Authorization: Bearer abc.def", []), `Authorization: Bearer ${REDACTED}`);
    assert.equal(
      redactSecrets(`{"authorization":"basic QUJD=="}`, []),
      `{"authorization":"basic ${REDACTED}"}`,
    );
    assert.equal(redactSecrets("authorization='Basic x%2Fy'", []), `authorization='Basic ${REDACTED}'`);
    assert.equal(redactSecrets("authorization = Basic a b", []), `authorization = Basic ${REDACTED} b`);
    assert.equal(redactSecrets("Authorization: Basic   QUJD", []), `Authorization: Basic ${REDACTED}`);
  });

  it("every occurrence is replaced; secrets shorter than 6 characters are left alone", () => {
    assert.equal(redactSecrets("abcdef and abcdef", ["abcdef"]), `${REDACTED} and ${REDACTED}`);
    assert.equal(redactSecrets("abcde", ["abcde", undefined, ""]), "abcde");
  });

  it("redactDeep redacts strings, keys and array items, and leaves other values alone", () => {
    const secret = "s3cr3t-value";
    assert.deepEqual(redactDeep({ [secret]: [secret, 1, null, true, { nested: `x${secret}` }] }, [secret]), {
      [REDACTED]: [REDACTED, 1, null, true, { nested: `x${REDACTED}` }],
    });
    assert.equal(redactDeep(5, [secret]), 5);
    const copy = redactDeep(JSON.parse('{"__proto__":{"polluted":true}}'), [secret]) as Record<
      string,
      unknown
    >;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype, "a __proto__ key stays a field");
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { polluted: true });
    assert.equal(redactDeep(null, [secret]), null);
  });

  it("a parsed body is walked when its text has a backslash, an Authorization word or a form of the secret", () => {
    const forms = secretForms("key-id", "s3cr3t-value");
    const parse = (text: string) => redactParsed(text, JSON.parse(text), forms);
    const plain = JSON.parse('{"name":"plain"}');
    assert.equal(
      redactParsed('{"name":"plain"}', plain, forms),
      plain,
      "nothing to redact: the value as parsed",
    );
    assert.deepEqual(parse('{"name":"s3cr3t-value"}'), { name: REDACTED });
    // \u0073 spells "s": the parsed string holds the secret though the text does not.
    assert.deepEqual(parse('{"name":"\\u00733cr3t-value"}'), { name: REDACTED });
    assert.deepEqual(parse('{"note":"AUTHORIZATION: Basic b3RoZXI="}'), {
      note: `AUTHORIZATION: Basic ${REDACTED}`,
    });
  });

  it("truncate keeps max characters and says how many more there were", () => {
    assert.equal(truncate("abcdef", 6), "abcdef");
    assert.equal(truncate("abcdefgh", 6), "abcdef… (2 more characters)");
  });

  it("a client shows no credential through JSON or inspect", () => {
    const client = new ApiClient({
      apiUrl: "https://api.example.com",
      keyId: "kid",
      keySecret: "s3cr3t-value",
      rateLimit: false,
    });
    const token = Buffer.from("kid:s3cr3t-value").toString("base64");
    for (const shown of [JSON.stringify(client), inspect(client, { depth: 5, showHidden: false })]) {
      assert.ok(!shown.includes("s3cr3t-value") && !shown.includes(token), shown);
    }
  });
});
