import type { ServerResponse } from "node:http";
import { captureConsole, type CapturedConsole } from "./captureConsole";
import {
  configureProviderFor,
  startHostileServer,
  type HostileHandler,
  type HostileServer,
} from "./hostileServer";

/*
 * A server on 127.0.0.1 that answers as a test says, one fixed way or answer by answer, with the
 * provider configured against it: for tests of what each entry point does with each answer.
 */

/** Writes `body` as JSON with `status` and `headers`; no body at all when it is undefined. */
export function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

/** The API's answer holding service `id` with `fields`. */
export const serviceAnswer = (id: string, fields: Record<string, unknown>) => ({
  status: 200,
  requestId: "r-1",
  result: { id, ...fields },
});

/** The API's error answer. */
export const errorAnswer = (status: number, message: string) => ({
  status,
  error: message,
  requestId: "r-err",
});

export interface AnsweringServer {
  /** The server the test started last. */
  readonly server: HostileServer;
  /** What the provider printed (console.log and console.error) during the test. */
  readonly output: CapturedConsole;
  /** Answers every request with `status` and `body` as JSON. */
  serve(status: number, body: unknown): Promise<HostileServer>;
  /** Answers request n (from 1) with `answers[n - 1]`, and every later one with the last. */
  serveInTurn(...answers: ((res: ServerResponse) => void)[]): Promise<HostileServer>;
  /** Answers as `handler` says. */
  serveWith(handler: HostileHandler): Promise<HostileServer>;
}

/**
 * In a `describe`: each `serve` closes the test's previous server, starts one answering as told and
 * configures the provider against it (the default organization as `settings` gives it). The
 * console is captured through each test; after it the server is closed and the console restored.
 */
export function answeringServer(settings: { organizationId?: string } = {}): AnsweringServer {
  let server: HostileServer | undefined;
  let output: CapturedConsole | undefined;
  beforeEach(() => {
    output = captureConsole();
  });
  afterEach(async () => {
    output?.restore();
    await server?.close();
    server = undefined;
  });
  const serveWith = async (handler: HostileHandler) => {
    await server?.close();
    server = await startHostileServer(handler);
    await configureProviderFor(server, settings);
    return server;
  };
  return {
    get server() {
      if (!server) throw new Error("no server yet: call serve first");
      return server;
    },
    get output() {
      return output!;
    },
    serve: (status, body) => serveWith((_req, res) => answer(res, status, body)),
    serveInTurn: (...answers) =>
      serveWith((_req, res, { count }) => answers[Math.min(count, answers.length) - 1](res)),
    serveWith,
  };
}
