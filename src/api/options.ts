import type { Dispatcher } from "undici";
import type { SERVICE_COMMANDS } from "./client";
import type { Clock } from "./clock";
import type { PollHint, RateBudget } from "./rateBudget";
import type { RateLimit } from "./rateLimit";
import type { StoreAddress } from "./storeAddress";
import type { RetryPolicy } from "./retry";
import type { Service } from "./serviceTypes";
import type { DispatcherTimeouts } from "./shared";

/** The commands of the state-change operation (`awake` is outside this package's scope). */
export type ServiceCommand = (typeof SERVICE_COMMANDS)[number];

/** Per-attempt limits: the dispatcher's connect, headers and body-idle timeouts, and a hard total. */
export interface AttemptTimeouts extends DispatcherTimeouts {
  /** The whole attempt (connect, headers and the entire body), however the server trickles it. */
  totalMs: number;
}

/** How to build an `ApiClient`: where, with which key, and the limits it keeps. */
export interface ApiClientOptions {
  /** Base URL without `/v1`; `http://` only for loopback hosts. */
  apiUrl: string;
  /** The API key ID (the user name of Basic auth). */
  keyId: string;
  /** The API key secret: never kept where it could be printed, redacted from everything. */
  keySecret: string;
  /** Client-side budget shared by the process; default 10 requests per 10 s; `false` turns it off. */
  rateLimit?: RateLimit | false;
  /** Where every machine on the key keeps one budget (a Redis URL, parsed); default none. */
  rateLimitStore?: StoreAddress;
  /** A budget of your own instead of the shared one (tests). */
  budget?: RateBudget;
  /** Overrides of `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /** Overrides of `DEFAULT_TIMEOUTS`. */
  timeouts?: Partial<AttemptTimeouts>;
  /** Time source for waits and deadlines; default the system clock. */
  clock?: Clock;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Receives one line per retry. */
  log?: (line: string) => void;
  /** An undici dispatcher of your own; default one keep-alive agent shared by the process. */
  dispatcher?: Dispatcher;
}

/** Counts requests the server may have applied (any answer but a 4xx), across calls; none is sent past `max`. */
export interface ApplyBudget {
  used: number;
  max: number;
}

/** Per-call options of the three operations. */
export interface RequestOptions {
  /**
   * Clock time that bounds the whole call, budget waits and retries included (else `ApiTimeoutError`).
   * An attempt starts only while a tenth of the first attempt's time (at most 250 ms) is left before it.
   */
  deadline?: number;
  /** Ends the call at once, in flight or waiting (`ApiCancelledError`, the signal's reason as its cause). */
  signal?: AbortSignal;
}

/** The converger's per-call options: internal, not exported from the package root. */
export interface CallOptions extends RequestOptions {
  /** For commands: shared count of sends that may have been applied; no send past its max. */
  applyBudget?: ApplyBudget;
  /** Marks a waiter's poll: the rate budget serves it after commands and first reads. */
  poll?: PollHint;
}

/** What the read and state-change operations return. */
export interface ServiceResult {
  /** The service as the API showed it, validated, every credential form redacted. */
  service: Service;
  /** The `requestId` of the answer, for support tickets. */
  requestId: string | undefined;
}

/** Counters of one client, for diagnostics and the benchmark. */
export interface ClientStats {
  /** Attempts sent, retries included. */
  attempts: number;
  /** Attempts that were retries of an earlier one. */
  retries: number;
  /** Answers by status, or `connection`, `timeout`, `cancelled`. */
  outcomes: Record<string, number>;
  /** Time spent waiting for the rate budget, in ms. */
  budgetWaitMs: number;
}

/** Per-attempt limits: connect 10 s, headers 30 s, body idle 30 s, the whole attempt 60 s. */
export const DEFAULT_TIMEOUTS: Readonly<AttemptTimeouts> = Object.freeze({
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  totalMs: 60_000,
});
