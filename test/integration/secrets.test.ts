import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import fc from "fast-check";
import { ApiClient } from "../../src/api/client";
import { basicAuthorization } from "../../src/api/redact";
import * as provider from "../../src/provider";
import { resolveConfig } from "../../src/config";
import { configureProviderFor, startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { leakForms, unescaped } from "../helpers/leakForms";

/*
 * The key secret and its Basic token, in every form, never leave: not in an error's message,
 * properties, cause chain, server message, request id or kept headers, nor in a log line or an
 * output, even when the server echoes them back in each of those places.
 */

const KEY_ID = "QZKEYID-7781";
// Characters that JSON and URL encoding change, so each form differs from the raw secret.
const SECRET = 'QZsecr3t"/+&= va1ue';
const TOKEN = basicAuthorization(KEY_ID, SECRET).slice("Basic ".length);
const FORMS = leakForms(SECRET, TOKEN);
const ORG = randomUUID();
const SVC = randomUUID();

/** Every 8-character window of every form: a secret cut in half by truncation still shows. */
function assertNoSecret(text: string, where: string): void {
  for (const form of FORMS) {
    for (let i = 0; i + 8 <= form.length; i++) {
      assert.ok(
        !text.includes(form.slice(i, i + 8)),
        `${where} leaks ${JSON.stringify(form.slice(i, i + 8))}: ${text}`,
      );
    }
  }
}

/** Everything an error carries: message, stack, own fields, headers, and the whole cause chain. */
function everything(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as (Error & { cause?: unknown }) | undefined, depth = 0; e && depth < 10; depth++) {
    parts.push(
      String(e.message),
      String(e.stack),
      JSON.stringify(e),
      inspect(e, { depth: 6, showHidden: true }),
    );
    e = e.cause as typeof e;
  }
  return parts.join("\n");
}

const echoes: Record<string, (res: import("node:http").ServerResponse) => void> = {
  "a header (raw, URL-encoded) and the requestId (the token)": (res) => {
    res.writeHead(400, {
      "x-request-id": encodeURIComponent(SECRET),
      "x-echo": TOKEN,
      "retry-after": TOKEN,
      "content-type": "application/json",
    });
    res.end(JSON.stringify({ status: 400, error: `bad key ${SECRET}`, requestId: `Basic ${TOKEN}` }));
  },
  "a body that is not JSON (header line, JSON-escaped and base64 forms)": (res) => {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(
      `oops Authorization: Basic ${TOKEN} "${JSON.stringify(SECRET).slice(1, -1)}" ${Buffer.from(SECRET).toString("base64")}`,
    );
  },
  "a message longer than the truncation point, the secret across it": (res) => {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: 400, error: `${"x".repeat(495)}${SECRET}${"y".repeat(2000)}${TOKEN}` }));
  },
  "a 2xx body that does not fit, quoting the secret": (res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`${SECRET} ${TOKEN}`);
  },
};

describe("the secret never leaves, even when the server echoes it", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  const original = { log: console.log, error: console.error };
  let lines: string[] = [];
  beforeEach(() => {
    lines = [];
    console.log = (...args: unknown[]) => lines.push(args.map(String).join(" "));
    console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  });
  afterEach(async () => {
    console.log = original.log;
    console.error = original.error;
    await server?.close();
  });

  const client = () =>
    new ApiClient({
      apiUrl: server!.url,
      keyId: KEY_ID,
      keySecret: SECRET,
      rateLimit: false,
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
      log: (line) => lines.push(line),
    });

  for (const [where, echo] of Object.entries(echoes)) {
    it(`echoed in ${where}`, async () => {
      server = await startHostileServer((_req, res) => echo(res));
      const error = await client()
        .getService(ORG, SVC)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error, "the call failed");
      assertNoSecret(everything(error), "the error");
      assertNoSecret(lines.join("\n"), "the log lines");
      assert.equal(
        server.requests[0].authorization,
        `Basic ${TOKEN}`,
        "sanity: the server did get the credentials",
      );
    });
  }

  it("echoed in a field of the Service: the output and progress lines never carry it", async () => {
    server = await startHostileServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          status: 200,
          requestId: TOKEN,
          result: {
            id: SVC,
            name: SECRET,
            state: "running",
            databaseVersion: `v ${TOKEN}`,
            endpoints: [{ host: SECRET, port: 1 }],
          },
        }),
      );
    });
    await configureProviderFor(server, { keyId: KEY_ID, keySecret: SECRET });
    const props = {
      organizationId: ORG,
      serviceId: SVC,
      state: "running",
      timeoutSeconds: 5,
      waitForState: true,
    };
    const read = await provider.serviceRunStateRead(SVC, props);
    const created = await provider.serviceRunStateCreate(props);
    assertNoSecret(JSON.stringify([read, created]), "the outputs");
    assertNoSecret(lines.join("\n"), "the log lines");
    assert.match(String(read.props.serviceName), /\[REDACTED\]/);
  });

  it("a configuration error quoting a URL never shows its userinfo", () => {
    for (const apiUrl of [
      `ht tp://${KEY_ID}:${encodeURIComponent(SECRET)}@api.example.com`,
      `https://${KEY_ID}:${encodeURIComponent(SECRET)}@api.example.com`,
    ]) {
      const error = (() => {
        try {
          resolveConfig((key) => ({ "dbcloud:apiUrl": apiUrl, "dbcloud:apiKeyId": KEY_ID })[key], {});
        } catch (e) {
          return e;
        }
      })();
      assert.ok(error, "configuration refused");
      assertNoSecret(everything(error), "the configuration error");
    }
  });
});

describe("the secret spelled through JSON escapes", function () {
  this.timeout(10_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("a Service field that spells the secret in \\u escapes is still redacted", async () => {
    const escaped = [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    server = await startHostileServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        `{"status":200,"requestId":"r-1","result":{"id":"${SVC}","name":"${escaped}","state":"running"}}`,
      );
    });
    const client = new ApiClient({ apiUrl: server.url, keyId: KEY_ID, keySecret: SECRET, rateLimit: false });
    const { service } = await client.getService(ORG, SVC);
    assert.equal(service.name, "[REDACTED]");
  });

  it("an ordinary answer with no escape and no secret is passed through as parsed", async () => {
    server = await startHostileServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        `{"status":200,"requestId":"r-1","result":{"id":"${SVC}","name":"plain name","state":"running"}}`,
      );
    });
    const client = new ApiClient({ apiUrl: server.url, keyId: KEY_ID, keySecret: SECRET, rateLimit: false });
    assert.equal((await client.getService(ORG, SVC)).service.name, "plain name");
  });
});

describe("every JSON escape of every character of the secret or its token", function () {
  this.timeout(60_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  /** One character as JSON text may spell it: as is where JSON allows, `\/`, or `\uXXXX` in either case. */
  const spelled = (char: string, choice: number): string => {
    const hex = char.charCodeAt(0).toString(16).padStart(4, "0");
    if (char === "/" && choice === 0) return "\\/";
    if (choice === 1 && !/["\\]/.test(char)) return char;
    return `\\u${choice === 2 ? hex.toUpperCase() : hex}`;
  };

  it("is redacted from bodies, headers, request ids and messages, parsed or raw (property, fixed seed)", async () => {
    let answer = { text: "", where: 0 };
    server = await startHostileServer((req, res) => {
      const { text } = answer;
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json", "x-request-id": text });
        res.end(
          `{"status":200,"requestId":"${text}","result":{"id":"${SVC}","name":"${text}","state":"running"}}`,
        );
      } else if (req.method === "PATCH") {
        // JSON that is not the error envelope: its raw text becomes the message.
        res.writeHead(400, { "content-type": "application/json", "x-request-id": text });
        res.end(`{"message":"authorization: Basic ${text}","detail":"${text}"}`);
      } else {
        res.writeHead(answer.where ? 502 : 400, { "content-type": "application/json", date: text });
        res.end(
          answer.where ? `proxy said ${text}` : `{"status":400,"error":"${text}","requestId":"${text}"}`,
        );
      }
    });
    const url = server.url;
    const secret = fc
      .string({ unit: "grapheme-ascii", minLength: 8, maxLength: 24 })
      .filter((s) => new Set(s).size >= 5 && s.trim() === s);
    const property = fc.asyncProperty(
      secret,
      fc.boolean(),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 64, maxLength: 64 }),
      fc.integer({ min: 0, max: 1 }),
      async (keySecret, ofToken, choices, where) => {
        const token = basicAuthorization(KEY_ID, keySecret).slice("Basic ".length);
        const value = ofToken ? token : keySecret;
        answer = { text: [...value].map((c, i) => spelled(c, choices[i % choices.length])).join(""), where };
        const client = new ApiClient({
          apiUrl: url,
          keyId: KEY_ID,
          keySecret,
          rateLimit: false,
          retry: { maxAttempts: 1 },
        });
        const read = await client.getService(ORG, SVC);
        const texts = [JSON.stringify(read)];
        for (const call of [
          client.changeServiceState(ORG, SVC, "start"),
          client.deleteReversePrivateEndpoint(ORG, SVC, "rpe-1"),
        ]) {
          texts.push(
            everything(
              await call.then(
                () => assert.fail("expected a failure"),
                (e: unknown) => e,
              ),
            ),
          );
        }
        for (const text of texts.flatMap((t) => [t, unescaped(t)])) {
          assert.ok(
            !text.includes(keySecret) && !text.includes(token),
            `leaks ${JSON.stringify(value)}: ${text}`,
          );
        }
      },
    );
    await fc.assert(property, { seed: 20, numRuns: 150 });
  });
});
