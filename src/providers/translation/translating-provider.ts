import type { Provider, UpstreamCall } from "../provider.ts";
import { ROUTES } from "../../shared/route-spec.ts";
import { UntranslatableError, type RequestTranslation } from "./request-translation.ts";
import type { WireTranslation } from "./wire-translations.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Response headers that describe the provider's body, not the translated one. */
const BODY_HEADERS = ["content-length", "content-encoding", "content-type", "transfer-encoding"];

/**
 * Wraps a provider so that callers of the other wire format reach it: the caller's body is
 * translated to the provider's request, the answer (JSON, SSE or error, status kept) back into
 * the caller's format with its usage in the caller's fields, so the relay's usage tap and
 * settlement read it as from a provider of the caller's format.
 */
export function createTranslatingProvider(inner: Provider, translation: WireTranslation, options: RequestTranslation): Provider {
  const providerRoute = ROUTES.get(translation.providerPath)!;
  const json = (body: unknown, status: number, headers = new Headers()): Response => {
    headers.set("content-type", "application/json");
    return new Response(JSON.stringify(body), { status, headers });
  };
  return {
    id: inner.id,
    region: inner.region,
    wires: new Set([translation.callerWire]),
    translated: true,
    connectTimeoutMs: inner.connectTimeoutMs,
    firstByteTimeoutMs: inner.firstByteTimeoutMs,
    ...(inner.endpoint === undefined ? {} : { endpoint: inner.endpoint }),
    async send(call: UpstreamCall): Promise<Response> {
      if (call.route.path !== translation.callerPath) return json(translation.refusal(`The route ${call.route.path} cannot be translated for this model; use ${translation.callerPath}`, null), 400);
      let request: Record<string, unknown>;
      try {
        request = translation.request(JSON.parse(decoder.decode(call.body)) as Record<string, unknown>, options);
      } catch (error) {
        if (error instanceof UntranslatableError) return json(translation.refusal(error.message, error.param), 400);
        throw error;
      }
      // The relay chose the call's headers and query for the translated path already (header-policy.ts).
      const response = await inner.send({ ...call, route: providerRoute, body: encoder.encode(JSON.stringify(request)) });
      const headers = new Headers(response.headers);
      for (const name of BODY_HEADERS) headers.delete(name);
      const created = Math.floor(Date.now() / 1000);
      if (!response.ok) return json(translation.error(parseOrNull(await response.text()), response.status), response.status, headers);
      if (request["stream"] === true && response.body !== null) {
        headers.set("content-type", "text/event-stream; charset=utf-8");
        return new Response(response.body.pipeThrough(translation.stream(created)), { status: response.status, headers });
      }
      return json(translation.response((await response.json()) as Record<string, unknown>, created), response.status, headers);
    },
  };
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
