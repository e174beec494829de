import type { Config, WebhookConfig } from "../config/config-schema.ts";
import type { AlertAttempt, AlertOutbox, ClaimedAlert } from "./alert-outbox.ts";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signWebhook } from "./webhook-signature.ts";

/** Most events one dispatcher takes per claim. */
const CLAIM_BATCH = 32;
/** A claim outlives the slowest attempt by this much before another dispatcher may take the event. */
const LEASE_MARGIN_MS = 1000;

/** Options of {@link startAlertDispatcher}. */
export interface AlertDispatcherOptions {
  /** The outbox (the relay's store). */
  readonly store: Pick<AlertOutbox, "claimAlerts" | "settleAlert">;
  /** The alert settings in effect (read on every round, so a reload applies at once). */
  readonly settings: () => Config["alerts"];
  /** Clock (epoch ms). */
  readonly now?: () => number;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  /** Told about a failed claim or settle (the dispatcher goes on at its next round). */
  readonly onError?: (error: unknown) => void;
}

/** A running dispatcher. */
export interface AlertDispatcher {
  /** Stops polling, cuts attempts in flight short (they are tried again later) and waits for the round to end. */
  stop(): Promise<void>;
}

/**
 * Delivers the alert outbox, off the request path: every `pollMs` it claims due events
 * (leased, so relays sharing a PostgreSQL never send one event at the same time), POSTs each
 * to its webhook signed with HMAC-SHA256, and records the outcome: delivered on a 2xx,
 * otherwise tried again after an exponential backoff with jitter, until the webhook's
 * maxAttempts, then failed. Each attempt is bounded by the webhook's timeoutMs. At least once:
 * a relay dying mid-attempt leaves the lease to expire and the event is sent again.
 */
export function startAlertDispatcher(options: AlertDispatcherOptions): AlertDispatcher {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const onError = options.onError ?? ((): void => undefined);
  const stopping = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let round: Promise<void> = Promise.resolve();

  const attempt = async (event: ClaimedAlert, hook: WebhookConfig | undefined, settings: Config["alerts"]): Promise<AlertAttempt> => {
    if (hook === undefined) return { delivered: false, error: `webhook "${event.webhook}" is not configured`, retryAt: null };
    const retry = (error: string): AlertAttempt => ({ delivered: false, error, retryAt: event.attempts >= hook.maxAttempts ? null : now() + backoff(event.attempts, settings, random) });
    const signal = AbortSignal.any([AbortSignal.timeout(hook.timeoutMs), stopping.signal]);
    try {
      const response = await fetch(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "renio-alerts",
          [EVENT_ID_HEADER]: event.id,
          [SIGNATURE_HEADER]: signWebhook(hook.secret, event.payload, Math.floor(now() / 1000)),
        },
        body: event.payload,
        signal,
        redirect: "manual",
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { delivered: true };
      return retry(`HTTP ${response.status}`);
    } catch (error) {
      if (stopping.signal.aborted) return { delivered: false, error: "the relay stopped during the attempt", retryAt: now() };
      if (signal.aborted) return retry(`timed out after ${hook.timeoutMs} ms`);
      return retry(`connection failed${errorCode(error)}`);
    }
  };

  const deliverRound = async (): Promise<number> => {
    const settings = options.settings();
    if (settings.webhooks.length === 0) return 0;
    const hooks = new Map(settings.webhooks.map((hook) => [hook.id, hook]));
    const leaseMs = Math.max(...settings.webhooks.map((hook) => hook.timeoutMs)) + LEASE_MARGIN_MS;
    const claimed = await options.store.claimAlerts(now(), CLAIM_BATCH, leaseMs);
    await Promise.all(
      claimed.map(async (event) => {
        const result = await attempt(event, hooks.get(event.webhook), settings);
        await options.store.settleAlert(event.id, result, now()).catch(onError);
      }),
    );
    return claimed.length;
  };

  const schedule = (ms: number): void => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      round = deliverRound().then(
        (count) => schedule(count === CLAIM_BATCH ? 0 : options.settings().pollMs),
        (error: unknown) => {
          onError(error);
          schedule(options.settings().pollMs);
        },
      );
    }, ms);
  };
  schedule(0);

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await round;
    },
  };
}

/** Delay before attempt `attempts + 1`: backoffMs doubled per attempt made, capped, with "equal jitter" (half fixed, half random). */
export function backoff(attempts: number, settings: Pick<Config["alerts"], "backoffMs" | "maxBackoffMs">, random: () => number): number {
  const full = Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (full / 2) * random());
}

/** A network error's code, when it has one (never its message: it may carry the URL). */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === "string" && /^[A-Za-z0-9_]+$/.test(code) ? ` (${code})` : "";
}
