import { RelayError, StoreUnavailableError, type RelayErrorCode } from "../shared/relay-error.ts";

/** An error as it crosses between event loops: a RelayError keeps its status, code, message and headers. */
export interface WireError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What travels in one postMessage: every message one side sent in one turn of its event loop. */
type Envelope<Req, Note> =
  | { readonly k: "req"; readonly id: number; readonly m: Req }
  | { readonly k: "ok"; readonly id: number; readonly v: unknown }
  | { readonly k: "err"; readonly id: number; readonly e: WireError }
  | { readonly k: "note"; readonly m: Note };

/** The thread on the other side: a Worker, or `self` inside one. */
export interface LoopPort {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/** What one side answers: requests (a value or a promise of one) and notes (nothing back). */
export interface PeerHandlers<Req, Note> {
  request(message: Req): unknown;
  note(message: Note): void;
  /**
   * True for a message (and a request's answer) made of JSON values only: a batch of such
   * messages crosses as one JSON string, several times cheaper than a structured clone (Bun).
   */
  plain(message: unknown): boolean;
}

/** One side of the channel between two event loops. */
export interface LoopPeer<Req, Note> {
  /** Sends a request; resolves with the other side's answer, rejects with its error rebuilt as a RelayError. */
  request(message: Req): Promise<unknown>;
  /** Sends a one-way message. */
  note(message: Note): void;
  /** Requests still waiting for their answer. */
  readonly waiting: number;
}

/**
 * Request/answer and one-way messages between two event loops. Messages sent in one turn go in
 * one postMessage (a microtask later), in order, so a thread hop is paid per turn, not per message.
 */
export function createLoopPeer<OutReq, OutNote, InReq, InNote>(port: LoopPort, handlers: PeerHandlers<InReq, InNote>): LoopPeer<OutReq, OutNote> {
  let batch: Array<Envelope<OutReq | InReq, OutNote>> = [];
  let batchPlain = true;
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const flush = () => {
    port.postMessage(batchPlain ? JSON.stringify(batch) : batch);
    batch = [];
    batchPlain = true;
  };
  const send = (envelope: Envelope<OutReq | InReq, OutNote>, plain: boolean) => {
    if (batch.length === 0) queueMicrotask(flush);
    batch.push(envelope);
    batchPlain &&= plain;
  };
  const answer = (id: number, request: InReq) => {
    const plain = handlers.plain(request);
    let value: unknown;
    try {
      value = handlers.request(request);
    } catch (error) {
      send({ k: "err", id, e: wireError(error) }, true);
      return;
    }
    if (value instanceof Promise) value.then((v) => send({ k: "ok", id, v }, plain), (error: unknown) => send({ k: "err", id, e: wireError(error) }, true));
    else send({ k: "ok", id, v: value }, plain);
  };
  port.addEventListener("message", (event: MessageEvent) => {
    const envelopes = (typeof event.data === "string" ? JSON.parse(event.data) : event.data) as Array<Envelope<InReq, InNote>>;
    for (const envelope of envelopes) {
      if (envelope.k === "note") handlers.note(envelope.m);
      else if (envelope.k === "req") answer(envelope.id, envelope.m);
      else {
        const waiter = pending.get(envelope.id);
        if (waiter === undefined) continue;
        pending.delete(envelope.id);
        if (envelope.k === "ok") waiter.resolve(envelope.v);
        else waiter.reject(relayErrorOf(envelope.e));
      }
    }
  });
  return {
    request(m) {
      const id = nextId++;
      send({ k: "req", id, m }, handlers.plain(m));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    note(m) {
      send({ k: "note", m }, handlers.plain(m));
    },
    get waiting() {
      return pending.size;
    },
  };
}

/** An error in the form that crosses threads (messages only: never a stack). */
export function wireError(error: unknown): WireError {
  if (error instanceof RelayError) return { status: error.status, code: error.code, message: error.message, ...(error.headers === undefined ? {} : { headers: error.headers }) };
  return { status: 500, code: "internal_error", message: error instanceof Error ? error.message : String(error) };
}

/** The RelayError a {@link WireError} stands for (StoreUnavailableError for `store_unavailable`, as callers test for it). */
export function relayErrorOf(error: WireError): RelayError {
  if (error.code === "store_unavailable") return new StoreUnavailableError(error.message);
  return new RelayError(error.status, error.code as RelayErrorCode, error.message, error.headers);
}
