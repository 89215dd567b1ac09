import assert from "node:assert/strict";
import { quoted } from "../../src/api/errors";
import {
  checkApiUrl,
  checkedRequestUrl,
  endpointSegment,
  isEndpointId,
  isLoopbackHost,
  isUuid,
  uuidSegment,
  withoutUserinfo,
} from "../../src/api/guards";
/* Input guards, edge by edge, with the exact messages users see. */

const UUID = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";

describe("ids", () => {
  it("a uuid is exactly 8-4-4-4-12 hex digits, in either case", () => {
    assert.ok(isUuid(UUID.toUpperCase()));
    for (const bad of [
      `x${UUID}`,
      `${UUID}x`,
      UUID.replace("3f2a", "3g2a"),
      UUID.slice(1),
      UUID.replaceAll("-", ""),
      "",
      42,
    ]) {
      assert.ok(!isUuid(bad), String(bad));
    }
  });

  it("a value that only converts to a uuid (an array holding one, from a JavaScript caller) is refused", () => {
    assert.ok(!isUuid([UUID]));
    assert.throws(() => uuidSegment("serviceId", [UUID]), {
      name: "InvalidInputError",
      message: `serviceId must be a uuid (like ${UUID}), got ["${UUID}"]`,
    });
  });

  it("an endpoint id is 1 to 128 allowed characters, and not dots alone", () => {
    for (const ok of ["a", "x".repeat(128), ".a", "a.", "a..b", "A-Z_0:9~"]) assert.ok(isEndpointId(ok), ok);
    for (const bad of [".", "..", "....", "x".repeat(129), "a%b", " a", "a\n", "", "a/b", 7]) {
      assert.ok(!isEndpointId(bad), JSON.stringify(bad));
    }
  });

  it("segments are returned as given, or refused with a message naming the field and the value", () => {
    assert.equal(uuidSegment("serviceId", UUID), UUID);
    assert.equal(endpointSegment("reversePrivateEndpointId", "rpe:1~a"), "rpe:1~a");
    const template =
      "/v1/organizations/{organizationId}/services/{serviceId}/pipesReversePrivateEndpoints/{id}";
    const path = `/v1/organizations/${UUID}/services/${UUID}/pipesReversePrivateEndpoints/${endpointSegment("id", "rpe:1~a")}`;
    assert.equal(
      checkedRequestUrl("https://api.example.com", template, path),
      `https://api.example.com${path}`,
    );
    assert.throws(() => uuidSegment("serviceId", "nope"), {
      name: "InvalidInputError",
      message: `serviceId must be a uuid (like ${UUID}), got "nope"`,
    });
    assert.throws(() => endpointSegment("reversePrivateEndpointId", ".."), {
      name: "InvalidInputError",
      message:
        'reversePrivateEndpointId must be 1 to 128 characters of letters, digits and . _ : ~ -, not dots alone, got ".."',
    });
  });
});

describe("the path about to be sent", () => {
  const template = "/v1/organizations/{organizationId}/services/{serviceId}";
  it("matches its template segment for segment, and says what it refused", () => {
    assert.equal(
      checkedRequestUrl("https://api.example.com", template, "/v1/organizations/a/services/b"),
      "https://api.example.com/v1/organizations/a/services/b",
    );
    for (const path of [
      "/v1/organizations/a/services/b/",
      "/v1/organizations//services/b",
      "/v1/organizations/./services/b",
      "/v1/organizations/a/services/b/state",
      "x/v1/organizations/a/services/b",
      `/v1/organizations/${"x".repeat(129)}/services/b`,
    ]) {
      assert.throws(() => checkedRequestUrl("https://api.example.com", template, path), {
        name: "InvalidInputError",
        message: new RegExp(
          `^Refusing to send: the request path ${quoted(path).replace(/[./()]/g, "\\$&")} does not match`,
        ),
      });
    }
  });

  it("the refusal quotes the path as it would have been sent", () => {
    assert.throws(
      () => checkedRequestUrl("https://api.example.com/b", template, "/v1/organizations/a/services/b/"),
      {
        message:
          'Refusing to send: the request path "/v1/organizations/a/services/b/" does not match ' +
          `${template} as sent ("/b/v1/organizations/a/services/b/")`,
      },
    );
  });

  it("a new template and base URL are checked like any other", () => {
    const newTemplate = `${template}/f`;
    const ok = "/v1/organizations/a/services/b/f";
    assert.equal(checkedRequestUrl("https://f.example.com", newTemplate, ok), `https://f.example.com${ok}`);
    assert.equal(
      checkedRequestUrl("https://api.example.com/f", newTemplate, ok),
      `https://api.example.com/f${ok}`,
    );
    assert.throws(() => checkedRequestUrl("https://f.example.com", newTemplate, "/v1/organizations/a/b/f"), {
      message: /^Refusing to send: the request path "\/v1\/organizations\/a\/b\/f" does not match/,
    });
  });

  it("a URL that passed for one template and base URL passes nothing else", () => {
    const path = "/v1/organizations/a/services/b";
    const base = "https://api.example.com/c";
    assert.equal(checkedRequestUrl(base, template, path), `${base}${path}`);
    // The same path under another operation's template is refused.
    assert.throws(
      () => checkedRequestUrl(base, `${template}/state`, path),
      /^InvalidInputError: Refusing to send/,
    );
    // The same URL split differently between base and path: the path does not fit the template.
    assert.throws(
      () => checkedRequestUrl("https://api.example.com", template, `/c${path}`),
      /^InvalidInputError: Refusing to send/,
    );
  });

  it("a segment that is only dots is refused, one with dots and more is not", () => {
    assert.throws(() =>
      checkedRequestUrl("https://api.example.com", template, "/v1/organizations/../services/b"),
    );
    assert.ok(checkedRequestUrl("https://api.example.com", template, "/v1/organizations/..a/services/b"));
  });
});

describe("API URLs", () => {
  it("loopback means localhost, ::1 or 127.x.y.z, nothing else", () => {
    for (const host of ["localhost", "LOCALHOST", "[::1]", "::1", "127.0.0.1", "127.255.0.9"]) {
      assert.ok(isLoopbackHost(host), host);
    }
    for (const host of [
      "localhost.example.com",
      "127.0.0.1.nip.io",
      "128.0.0.1",
      "127.0.0",
      "x127.0.0.1",
      "::2",
    ]) {
      assert.ok(!isLoopbackHost(host), host);
    }
  });

  const problems = (text: string) => {
    const checked = checkApiUrl(text);
    return "problems" in checked ? checked.problems : [];
  };

  const LOOPBACK_ONLY =
    "http:// is only allowed for a loopback host (localhost, 127.0.0.1, ::1); use https://";
  const CREDENTIALS = "the URL must not contain credentials; set the API key instead";
  const QUERY = "the URL must not have a query or fragment";
  const V1 = "give the base URL without the trailing /v1 (the client adds it)";

  it("each problem is named, all at once", () => {
    const table: [string, string[]][] = [
      ["ftp://x.example.com", ["the scheme must be https (got ftp)"]],
      ["http://10.0.0.1:8080", [`${LOOPBACK_ONLY}10.0.0.1:8080`]],
      ["https://user:pw@x.example.com", [CREDENTIALS]],
      ["https://user@x.example.com", [CREDENTIALS]],
      ["https://:pw@x.example.com", [CREDENTIALS]],
      ["https://x.example.com/#f", [QUERY]],
      ["https://x.example.com/v1/", [V1]],
      ["http://u:p@10.0.0.1/v1?q", [`${LOOPBACK_ONLY}10.0.0.1`, CREDENTIALS, QUERY, V1]],
    ];
    for (const [url, expected] of table) assert.deepEqual(problems(url), expected, url);
  });

  it("a URL that does not parse is quoted without its userinfo", () => {
    for (const [url, shown] of [
      ["user name:hunter2@nowhere", "***@nowhere"],
      ["https://u:hunter2@exa mple.com", "https://***@exa mple.com"],
      ["//u:hunter2@api.example.com", "//***@api.example.com"],
    ]) {
      assert.deepEqual(problems(url), [
        `"${shown}" is not an absolute URL (expected e.g. https://api.example.com)`,
      ]);
    }
    assert.equal(withoutUserinfo("https://u:p@h/x@y"), "https://***@h/x@y");
    assert.equal(withoutUserinfo("https://h/path?x=a@b"), "https://h/path?x=a@b");
  });

  it("a base path is kept, slashes at its end are not; /v1 inside a longer segment is fine", () => {
    assert.deepEqual(checkApiUrl("https://x.example.com/api//"), { url: "https://x.example.com/api" });
    assert.deepEqual(checkApiUrl("https://x.example.com/apiv1"), { url: "https://x.example.com/apiv1" });
    assert.deepEqual(checkApiUrl("https://x.example.com/v1/api"), { url: "https://x.example.com/v1/api" });
    assert.deepEqual(checkApiUrl("http://localhost:8787"), { url: "http://localhost:8787" });
  });
});
