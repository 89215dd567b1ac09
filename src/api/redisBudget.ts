import type { RateLimit } from "./rateLimit";
import { redactSecrets } from "./redact";
import type { StoreAddress } from "./storeAddress";

/*
 * One budget kept in Redis for every process on every machine that uses one key and API URL
 * (docs/rate-limits.md, "the store"). One script admits, on Redis's own clock, so two machines
 * cannot both take the last slot and their clocks need not agree.
 */

const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- ARGV[2] is the window's length, except for 'block', where it is the pause.
local win, ttl, limit, nonce = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5]), ARGV[6]
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[1] == 'block' then
  local untilAt = now + math.floor(tonumber(ARGV[2]))
  if untilAt > blocked then redis.call('SET', KEYS[2], untilAt, 'PX', untilAt - now + ttl) end
  return {1, 0}
end
if ARGV[1] == 'answered' then
  local at = redis.call('ZSCORE', KEYS[5], nonce)
  if at and tonumber(at) < now then redis.call('ZADD', KEYS[5], now, nonce) end
  return {1, 0}
end
-- Drops the entries of key older than the window ending now; returns how many remain and when the
-- window next has room for one more (no more than the limit in any window).
local function room(key)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - win)
  local n = redis.call('ZCARD', key)
  if n < limit then return n, now end
  return n, tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2]) + win
end
if ARGV[1] == 'sent' then
  -- Sends, dated when they go (and re-dated to their answers).
  local _, freeAt = room(KEYS[5])
  if freeAt > now then return {0, freeAt - now} end
  redis.call('ZADD', KEYS[5], now, nonce)
  redis.call('PEXPIRE', KEYS[5], win + ttl)
  return {1, 0}
end
-- Reservations, dated to their slots, in the order asked.
local n, freeAt = room(KEYS[1])
local spacing = math.ceil(win / limit)
local at = math.max(now, blocked, freeAt)
if n > 0 then
  local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  -- Polls go a slot apart, so each later one finds more transitions done; commands still burst.
  at = math.max(at, ARGV[1] == 'poll' and last + spacing or last)
end
local wait = at - now
if ARGV[1] == 'poll' then
  -- Waiting polls bid with their rank; bids not renewed within two slots are dropped.
  local rank = tonumber(ARGV[7])
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - 2 * spacing)) do
    redis.call('ZREM', KEYS[3], old)
    redis.call('ZREM', KEYS[4], old)
  end
  redis.call('ZADD', KEYS[3], rank, nonce)
  redis.call('ZADD', KEYS[4], now, nonce)
  redis.call('PEXPIRE', KEYS[3], 2 * spacing + ttl)
  redis.call('PEXPIRE', KEYS[4], 2 * spacing + ttl)
  if wait > 0 then return {0, wait} end
  local best = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  if best[1] ~= nonce and tonumber(best[2]) < rank then return {0, math.ceil(spacing / 4)} end
  redis.call('ZREM', KEYS[3], nonce)
  redis.call('ZREM', KEYS[4], nonce)
elseif tonumber(ARGV[4]) >= 0 and wait > tonumber(ARGV[4]) then
  return {0, wait}
end
redis.call('ZADD', KEYS[1], at, nonce)
redis.call('PEXPIRE', KEYS[1], wait + win + ttl)
return {1, wait}
`;

/** The longest a store may take to answer before the process stops using it: Redis answers in ms. */
export const STORE_TIMEOUT_MS = 2_000;

/** What the store said: admitted after `waitMs`, or not (a poll whose slot is taken, a slot past the deadline). */
export interface Admission {
  admitted: boolean;
  waitMs: number;
}

/** A client that never reconnects (the local budget takes over); loaded only when a store is set. */
async function newClient(url: string) {
  const { createClient } = await import("@redis/client");
  return createClient({
    url,
    socket: { connectTimeout: STORE_TIMEOUT_MS, reconnectStrategy: false },
    disableOfflineQueue: true,
  });
}

type Client = Awaited<ReturnType<typeof newClient>>;

/** No wait the store names may hold a request back longer than this: a longer one is a broken store. */
const MAX_STORE_WAIT_MS = 15 * 60_000;

/** The script's answer, checked: anything but two small integers means the store is not ours to trust. */
function admissionOf(reply: unknown): Admission {
  const [admitted, waitMs] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if ((admitted !== 0 && admitted !== 1) || !Number.isSafeInteger(waitMs))
    throw new Error("the store answered something other than an admission");
  if ((waitMs as number) < 0 || (waitMs as number) > MAX_STORE_WAIT_MS)
    throw new Error(`the store named a wait out of range (${String(waitMs)} ms)`);
  return { admitted: admitted === 1, waitMs: waitMs as number };
}

/** The store's side of one budget: each call answers undefined once the store failed. */
export class RedisBudget {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private failed = false;

  constructor(
    private readonly address: StoreAddress,
    /** The prefix of this budget's entries (storeKeyPrefix). */
    private readonly prefix: string,
    /** The requests any window holds at most; its length with the margin included. */
    private readonly limit: RateLimit,
    /** How long entries outlive their last use, in ms (a few windows). */
    private readonly ttlMs: number,
    /** Told once, when the store fails: from then on the caller keeps its budget locally. */
    private readonly onFailure: (message: string) => void,
  ) {}

  /** The next slot for the request `nonce`, unless it lies over `maxWaitMs` away. */
  admit(maxWaitMs: number, nonce: string): Promise<Admission | undefined> {
    const maxWait = Number.isFinite(maxWaitMs) ? Math.max(0, Math.floor(maxWaitMs)) : -1;
    return this.run("slot", nonce, { maxWait });
  }

  /** A slot free now for the poll `nonce` of `rank` (pollRank), unless one ranked before it waits. */
  admitPoll(rank: number, nonce: string): Promise<Admission | undefined> {
    return this.run("poll", nonce, { rank: Math.round(rank) });
  }

  /** Records the send of `nonce` now if the window ending now has room (a timer may fire late), else the wait. */
  sent(nonce: string): Promise<Admission | undefined> {
    return this.run("sent", nonce);
  }

  /** Re-dates the send of `nonce` to now, when its answer came: the server has counted it by then. */
  answered(nonce: string): Promise<Admission | undefined> {
    return this.run("answered", nonce);
  }

  /** No slot for anyone on the key for `forMs` (a 429's reset). */
  block(forMs: number): Promise<Admission | undefined> {
    return this.run("block", "", { pauseMs: Math.max(0, Math.floor(forMs)) });
  }

  get working(): boolean {
    return !this.failed;
  }

  /** Closes the connection (tests; a process may also just exit, as a connected socket does not hold it). */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    await client?.close().catch(() => client.destroy());
  }

  /** Runs the script's `op` for the request `nonce` (a wait over `maxWait` refused, -1 for none). */
  private async run(
    op: "slot" | "poll" | "sent" | "answered" | "block",
    nonce: string,
    { maxWait = -1, rank = 0, pauseMs = Math.ceil(this.limit.windowMs) } = {},
  ): Promise<Admission | undefined> {
    if (this.failed) return undefined;
    const keys = ["slots", "blocked", "bids", "bidsAt", "sent"].map((name) => `${this.prefix}:${name}`);
    // ARGV: op, the window (or the pause), ttl, max wait, limit, nonce, rank.
    const args = [op, pauseMs, this.ttlMs, maxWait, this.limit.requests, nonce, rank].map(String);
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = this.connected().then((client) => client.eval(ADMIT, { keys, arguments: args }));
      // A slow store counts as a failed one. Not unref'd: it holds the process open while a request
      // awaits the store (a connected socket does not).
      const late = new Promise<never>((_, reject) => {
        const slow = new Error(`no answer within ${STORE_TIMEOUT_MS} ms`);
        timer = setTimeout(() => reject(slow), STORE_TIMEOUT_MS);
      });
      return admissionOf(await Promise.race([reply, late]));
    } catch (error) {
      this.fail(error);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private connected(): Promise<Client> {
    this.connecting ??= (async () => {
      const client = await newClient(this.address.url);
      // Given up while the module loaded: a client dialled now would never be destroyed.
      if (this.failed) throw new Error("the store was given up");
      client.on("error", () => undefined); // reported once through the command that fails
      this.client = client;
      await client.connect();
      client.unref();
      return client;
    })();
    return this.connecting;
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    // Destroyed, not closed: a graceful close waits for the commands a silent store never answers,
    // and its socket (ref'd until connected) would hold the process open.
    this.client?.destroy();
    this.client = undefined;
    this.connecting = undefined;
    const why = redactSecrets(String((error as Error)?.message ?? error), [this.address.password]);
    this.onFailure(
      `the shared rate budget store ${this.address.shown} failed (${why.slice(0, 200)}); ` +
        `this process keeps its budget on this machine from now on`,
    );
  }
}
