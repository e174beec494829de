import { MockResetError } from "./mock-errors.ts";
import type { Mock } from "./mock-server.ts";

/**
 * The mock's handler for a real HTTP server: the `reset` fault becomes a body that
 * errors before its first byte, so the server drops the connection; a call whose
 * client went away gets an empty answer nobody reads. Pass it to `runtime.serve`.
 */
export function mockServerFetch(mock: Mock): (request: Request) => Promise<Response> {
  return (request) =>
    mock.fetch(request).catch((error: unknown) => {
      if (error instanceof MockResetError) return resetResponse();
      if (request.signal.aborted) return new Response(null, { status: 499 });
      throw error;
    });
}

function resetResponse(): Response {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // One macrotask first: Bun prints a body's error (stack and source) when it comes in the first pull, not later.
      await new Promise((resolve) => setTimeout(resolve, 0));
      controller.error(new MockResetError());
    },
  });
  return new Response(body, { headers: { "content-type": "application/json" } });
}
