import type { Admission } from "../budgets/budget-charge.ts";
import type { JournalStart } from "../shared/journal-records.ts";
import type { Usage, WireFormat } from "../shared/usage.ts";
import type { Ledger } from "../journal/ledger.ts";
import { firstAllowed, type GuardedCall } from "../guardrails/guarded-call.ts";
import { RelayError, StoreUnavailableError } from "../shared/relay-error.ts";
import { blankStart, type CallInput } from "../shared/call-context.ts";
import { presentedSecret, type CallerKey, type Keyring } from "../keys/keyring.ts";
import type { RelaySnapshot, SnapshotCell } from "./relay-snapshot.ts";
import { readBody } from "./read-body.ts";
import { inspectRequestBody, NOT_JSON } from "./request-body.ts";
import { createInFlightCalls } from "./in-flight-calls.ts";
import { createCallSlots, type CallSlots, type SlotState } from "./call-slots.ts";
import { createConnectCheck, type ConnectCheck } from "../routing/upstream-connect.ts";
import type { CallEnd } from "../routing/call-end.ts";
import { exchange, type Exchange } from "./upstream-exchange.ts";
import type { RateTicket } from "../limits/rate-limiter.ts";
import type { CallObserver } from "../observe/call-observer.ts";
import { endRefused, passThroughTracer, type CallTrace, type Tracer } from "../observe/call-trace.ts";
import type { CallAttempts } from "../routing/call-attempts.ts";
import { attemptsFor, settleCall } from "./call-settlement.ts";
import { storedBody } from "../journal/stored-body.ts";
import { callDeadlineMs } from "../routing/call-deadline.ts";
import { RouteCursor, type Target } from "../routing/route-plan.ts";
import type { RouteQuote } from "../pricing/route-quote.ts";
import { journalText, TEXT_BOUNDS, textProblem } from "../shared/input-text.ts";
import { cheaperModelOf } from "../budgets/budget-downgrade.ts";
import { cheaperRoute, downgradedStart, downgradeHeaders, priceRoute, type RouteCall } from "./call-route.ts";
import { outputLimitField } from "../providers/output-limit-field.ts";
import { budgetExceeded, budgetHeaders, coolingDown, refusalOf, refusedKey } from "./call-refusals.ts";
import type { CacheCall } from "../cache/response-cache.ts";
import { cacheStep, responseIds, UNCACHED } from "./cache-hit.ts";
import { admitCall } from "./call-admission.ts";

/** Everything the relay needs. */
export interface RelayDeps {
  /** The config's keyring, router and pricing; read once per call, swapped whole on reload. */
  readonly snapshot: SnapshotCell;
  readonly ledger: Ledger;
  /** Connect-timeout enforcement (default: a real TCP check while a provider is cold). */
  readonly connectCheck?: ConnectCheck;
  /** Told about every call when it ends, admitted or refused (metrics, the call log). */
  readonly observer?: CallObserver;
  /** Traces calls (default: tracing off, a client's traceparent passed through). */
  readonly tracer?: Tracer;
  /** Epoch ms now, for target cooldowns (default Date.now; tests drive it). */
  readonly clock?: () => number;
  /** Draws in [0, 1) for weighted routing and backoff jitter (default Math.random). */
  readonly random?: () => number;
  /** The bound on calls served at once (default: one sized by the config's `server` limits). */
  readonly slots?: CallSlots;
}

/** The request path: authenticate, route, price, journal + reserve, forward, settle. */
export interface Relay {
  /** Relays one model call. Throws RelayError for anything Renio refuses. */
  call(input: CallInput): Promise<Response>;
  /** The public model names the request's key may call on routes of `wire` (GET /v1/models); throws RelayError 401 like a call. */
  modelsFor(request: Request, wire: WireFormat): string[];
  /** Resolves when every forwarded call has ended, or after `graceMs`. */
  drained(graceMs: number): Promise<void>;
  /** Calls forwarded and not yet ended. */
  readonly inFlight: number;
  /** Calls holding a slot, waiting for one, and the limits (server.maxConcurrentCalls …). */
  slotState(): SlotState;
}

/** Creates the relay. */
export function createRelay(deps: RelayDeps): Relay {
  const { snapshot, ledger, observer } = deps;
  const inFlight = createInFlightCalls();
  const connectCheck = deps.connectCheck ?? createConnectCheck();
  const tracer = deps.tracer ?? passThroughTracer;
  const clock = deps.clock ?? Date.now;
  const random = deps.random ?? Math.random;
  const slots = deps.slots ?? createCallSlots(snapshot.current.config.server);

  const authenticate = (request: Request, keyring: Keyring = snapshot.current.keyring): CallerKey => {
    const secret = presentedSecret(request.headers);
    if (secret === undefined) throw new RelayError(401, "missing_api_key", "No API key provided: send `Authorization: Bearer <key>` or `x-api-key: <key>`");
    const key = keyring.find(secret);
    if (key === undefined) throw refusedKey(keyring.refusal(secret));
    return key;
  };

  /** Completes the entry and settles its charges; never throws, always ends the in-flight count, the rate-limit hold and the call's slot. */
  const settle = ({ config, pricing }: RelaySnapshot, start: JournalStart, routed: RoutedCall, attempts: CallAttempts, limits: RateTicket, input: CallInput, trace: CallTrace, end: CallEnd, leave: () => void) => {
    const { quotes } = routed;
    let finalUsage: Usage | null = null;
    try {
      const settled = settleCall({ pricing, journal: config.journal, start, quotes, attempts, startedAt: input.startedAt }, end);
      finalUsage = settled.finalUsage;
      routed.cache?.settled(settled.completion.outcome === "ok" && settled.completion.status === 200 ? { ok: true, usage: finalUsage, cost: settled.completion.cost } : undefined);
      routed.guarded?.complete(settled.completion);
      ledger.complete(start.id, settled.completion, quotes.call.charges, settled.cost);
      observer?.ended(start, settled.completion, quotes.call.charges.length > 0 ? quotes.call.reserved : 0);
      trace.end({ start, ...settled.completion, currency: config.budget.currency });
    } finally {
      if (finalUsage === null) routed.cache?.settled(undefined);
      limits.end(finalUsage, end.mayHaveBeenBilled);
      inFlight.end();
      leave();
    }
  };

  /** Forwards an admitted call; exchange() ends it exactly once, whatever happens, and so settles it. */
  const forward = (
    snap: RelaySnapshot,
    start: JournalStart,
    routed: RoutedCall,
    input: CallInput,
    admission: Extract<Admission, { admitted: true }>,
    limits: RateTicket,
    call: Pick<Exchange, "dropUsageChunk" | "trace">,
    leave: () => void,
  ): Promise<Response> => {
    const headers = { ...responseIds(input), ...budgetHeaders(admission), ...limits.headers, ...routed.cacheHeader, ...(admission.downgraded ? downgradeHeaders(start) : undefined) };
    const { quotes } = routed;
    const attempts = attemptsFor(quotes, clock, snap.config.routing.cooldown);
    const route = { cursor: routed.cursor, attempts, bodyFor: routed.bodyFor, deadlineAt: routed.deadlineAt, chunkTimeoutMs: snap.config.routing.chunkTimeoutMs, clock, random, onAttempt: routed.onAttempt, streams: start.stream };
    inFlight.begin();
    const guarded = routed.guarded;
    const guardAnswer = guarded && ((to: Target) => guarded.answerFor(to.provider.region));
    const answer = exchange({ ...call, input, route, first: routed.first, headers, guardAnswer, onEnd: (end) => settle(snap, start, routed, attempts, limits, input, call.trace, end, leave), connectCheck });
    const cache = routed.cache;
    return cache === undefined ? answer : answer.then((response) => cache.capture(response));
  };

  return {
    drained: (graceMs) => inFlight.drained(graceMs),
    get inFlight() {
      return inFlight.count;
    },
    slotState: () => slots.state(),
    modelsFor(request, wire) {
      const { keyring, router } = snapshot.current;
      return router.modelsFor(authenticate(request, keyring), wire);
    },
    async call(input) {
      const { route, request } = input;
      // The one read of the config for this call: a reload from here on does not touch it.
      const snap = snapshot.current;
      const { config, router, pricing, rateLimiter } = snap;
      const start = blankStart(input);
      const trace = tracer.begin(input);
      let recorded = false;
      let forwarded = false;
      // The call is timed by its own settings, not the server's idle timeout; both are given back when it ends.
      const timedByServer = input.untimed?.();
      let slot = false;
      const leave = () => {
        if (slot) slots.leave();
        timedByServer?.();
      };
      try {
        const key = authenticate(request, snap.keyring);
        start.keyId = key.id;
        start.project = key.project;
        // A slot before the body is read: a call waiting for one holds no body.
        const waiting = slots.enter(config.server, request.signal);
        if (waiting !== undefined) await waiting;
        slot = true;
        const body = await readBody(request, { maxBytes: config.server.maxBodyBytes, timeoutMs: config.server.bodyReadTimeoutMs });
        start.requestBytes = body.byteLength;
        const inspected = inspectRequestBody(body);
        if (!inspected.ok) throw new RelayError(400, inspected.problem === NOT_JSON ? "invalid_json" : "invalid_request", inspected.problem);
        const fields = inspected.fields;
        start.requestBody = storedBody(config.journal, body);
        if (fields.model === undefined) throw new RelayError(400, "missing_model", "The request body must name a `model`");
        const modelProblem = textProblem(fields.model, TEXT_BOUNDS.name);
        if (modelProblem !== undefined) {
          // Journaled as a refusal with the name escaped and cut: no raw control character reaches the store.
          start.model = journalText(fields.model);
          throw new RelayError(400, "invalid_request", `The \`model\` field ${modelProblem}; send a model name from GET /v1/models`);
        }
        start.model = fields.model;
        start.stream = route.streams && fields.stream;
        // Who the call is for: journaled with it, and the budgets of its team, tags and end user apply.
        const who = snap.callers.identify(key, request.headers, fields);
        if (who.endUser !== null) start.endUser = who.endUser;
        if (who.team !== null) start.team = who.team;
        if (who.tags.length > 0) start.tags = who.tags;
        const plan = router.resolve(key, fields.model, route.wire);
        const deadlineOf = (timeoutMs: number) => input.startedAt + callDeadlineMs(request.headers, timeoutMs, config.routing.maxRequestTimeoutMs);
        let deadlineAt = deadlineOf(plan.timeoutMs);
        const cursor = new RouteCursor(plan.stages, random, plan.targets.length > 1);
        let target = cursor.next(clock()) ?? coolingDown(plan, clock());
        // Guardrails: a call no policy can apply to skips the step (one check); others are scanned per target region.
        let guarded: GuardedCall | undefined;
        const guard = snap.guardrails?.forCall({ keyId: key.id, project: key.project, model: fields.model });
        if (guard !== undefined) {
          // The journal keeps a copy of the request only once the guard has masked it.
          const keepsBody = start.requestBody !== null;
          start.requestBody = null;
          guarded = await guard.request(body, route.path, plan.targets.map((to) => to.provider.region));
          try {
            target = firstAllowed(guarded, target, () => cursor.next(clock()), (to) => cursor.exclude(to));
          } finally {
            start.guardrails = guarded.records();
            if (keepsBody) start.requestBody = storedBody(config.journal, guarded.journalBody());
          }
        }
        start.provider = target.provider.id;
        start.upstreamModel = target.upstreamModel;
        start.region = target.provider.region;
        const dropUsageChunk = start.stream && route.wire === "openai" && route.path !== "/v1/responses" && !fields.includeUsage;
        const routeCall: RouteCall = { key, route, body, fields, who, guarded, dropUsageChunk, receivedAt: input.receivedAt };
        let priced = priceRoute(pricing, plan, cursor, target, routeCall);
        let quotes = priced.quotes;
        // A budget that names a cheaper model: that call is priced too, and admitted instead in the same commit if the first does not fit.
        const cheaper = guarded === undefined ? cheaperModelOf(quotes.call.charges, fields.model) : undefined;
        const alternative = cheaper === undefined ? undefined : cheaperRoute(snap, cheaper, routeCall, clock(), random);
        const cheaperStart = alternative === undefined || cheaper === undefined ? undefined : downgradedStart(start, cheaper, alternative.first);
        const cheaperDeadline = alternative && deadlineOf(alternative.plan.timeoutMs);

        // The response cache (opt-in): a hit is served from it, needing no rate limit, reservation or provider.
        const cached = snap.cache === undefined ? UNCACHED : await cacheStep(snap.cache, { ledger, observer, trace, currency: config.budget.currency }, start, input, { keyId: key.id, project: key.project, model: fields.model }, target, priced.bodyFor(target)!);
        if (cached.hit !== undefined) {
          recorded = forwarded = true;
          leave();
          return cached.hit;
        }

        // Rate limits, then the admission (entry + reservations); limits decided by a round trip are awaited beside the admission's write (call-admission.ts).
        const deciding = rateLimiter.admit({ keyId: key.id, project: key.project, model: fields.model, tokens: quotes.call.reservedTokens, wire: route.wire });
        recorded = true;
        const cheaperCall = cheaperStart === undefined || alternative === undefined ? undefined : { start: cheaperStart, charges: alternative.quotes.call.charges };
        const { limits, admission } = await admitCall(ledger, deciding, { start, charges: quotes.call.charges, cheaper: cheaperCall, startedAt: input.startedAt });
        if (!admission.admitted) {
          limits.cancel();
          throw budgetExceeded(admission, config.budget.currency, quotes.call, outputLimitField(route.path, fields.model), Date.now());
        }
        if (admission.downgraded && alternative !== undefined && cheaperStart !== undefined) {
          Object.assign(start, cheaperStart);
          priced = alternative;
          quotes = priced.quotes;
          deadlineAt = cheaperDeadline ?? deadlineAt;
        }
        forwarded = true;
        const onAttempt = (to: Target) => trace.routed({ provider: to.provider, providerName: config.providers.get(to.provider.id)?.type ?? to.provider.id, maxTokens: fields.maxOutputTokens, upstreamModel: to.upstreamModel });
        // A downgraded answer is the cheaper model's: it is never stored under the model the call asked for.
        const cache = admission.downgraded ? undefined : cached.call;
        return await forward(snap, start, { first: priced.first, cursor: priced.cursor, quotes, bodyFor: priced.bodyFor, deadlineAt, onAttempt, guarded, cache, cacheHeader: cached.header }, input, admission, limits, { dropUsageChunk, trace }, leave);
      } catch (error) {
        if (!forwarded) leave();
        if (!recorded && error instanceof RelayError && !(error instanceof StoreUnavailableError)) {
          // A client gone while sending its body was never admitted: journaled as client_aborted.
          ledger.refuse({ start, status: error.status, errorCode: error.code, ...(error.code === "client_aborted" ? { outcome: "client_aborted" } : {}) });
        }
        // A forwarded call was observed when it settled; every other end is observed here.
        if (!forwarded && observer !== undefined) observer.ended(start, refusalOf(error, input.startedAt), 0);
        // A forwarded call's trace has ended at its settlement; this ends a refused one.
        endRefused(trace, start, error, config.budget.currency);
        throw error;
      }
    },
  };
}

/** A call's route once priced: where it goes first, how it moves on, its bodies and its deadline. */
interface RoutedCall {
  readonly first: Target;
  readonly cursor: RouteCursor;
  readonly quotes: RouteQuote;
  readonly bodyFor: (target: Target) => Uint8Array<ArrayBuffer> | undefined;
  /** performance.now() by which an answer must have started. */
  readonly deadlineAt: number;
  /** Told where each attempt goes (the trace). */
  readonly onAttempt: (target: Target) => void;
  /** The call as its guardrail policies send it, region by region (undefined: none applies). */
  readonly guarded: GuardedCall | undefined;
  /** The call's use of the response cache (undefined: not cached). */
  readonly cache: CacheCall | undefined;
  /** `x-renio-cache` for the answer (empty without a cache). */
  readonly cacheHeader: Readonly<Record<string, string>>;
}
