import { createHmac, timingSafeEqual } from "node:crypto";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Server } from "../../src/runtime/runtime.ts";

/** One webhook request as the receiver got it. */
export interface Delivery {
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The exact body text. */
  body: string;
  /** Which request this was (0-based, over all requests). */
  index: number;
}

/** How the receiver answers one request: a status, or "hang" (never answers until stopped). */
export type Answer = number | "hang";

/** A real HTTP webhook target on a loopback port. */
export interface WebhookReceiver {
  readonly url: string;
  /** Every request received, in order. */
  readonly deliveries: Delivery[];
  /** How the next requests are answered (default: 200 to all). */
  answer: (delivery: Delivery) => Answer;
  /** Resolves once `predicate` holds for the deliveries received (checked on each one). */
  until(predicate: (deliveries: readonly Delivery[]) => boolean): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that records every request and answers by `answer`. */
export async function startWebhookReceiver(answer: WebhookReceiver["answer"] = () => 200): Promise<WebhookReceiver> {
  const runtime = await currentRuntime();
  const deliveries: Delivery[] = [];
  const waiters: Array<{ predicate: (d: readonly Delivery[]) => boolean; resolve: () => void }> = [];
  const hanging: Array<() => void> = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(deliveries)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const receiver: WebhookReceiver = {
    url: "",
    deliveries,
    answer,
    until: (predicate) =>
      new Promise<void>((resolve) => {
        waiters.push({ predicate, resolve });
        check();
      }),
    stop: async () => {
      for (const release of hanging.splice(0)) release();
      await server.stop();
    },
  };
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const delivery: Delivery = { headers: Object.fromEntries(request.headers), body: await request.text(), index: deliveries.length };
      deliveries.push(delivery);
      const reply = receiver.answer(delivery);
      check();
      if (reply === "hang") {
        await new Promise<void>((release) => hanging.push(release));
        return new Response("released", { status: 503 });
      }
      return new Response(reply < 300 ? "ok" : "not now", { status: reply });
    },
  });
  return Object.assign(receiver, { url: `http://127.0.0.1:${server.port}/hook` });
}

/**
 * Verifies a delivery as README "Alerts" tells receivers to: HMAC-SHA256 with the secret over
 * `<t>.<body>`, compared in constant time, and `t` within `toleranceS` of `nowS`.
 */
export function signatureValid(delivery: Delivery, secret: string, nowS: number, toleranceS = 300): boolean {
  const header = delivery.headers["renio-signature"] ?? "";
  const parts = Object.fromEntries(header.split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || parts.v1 === undefined) return false;
  const expected = createHmac("sha256", secret).update(`${parts.t}.${delivery.body}`).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
