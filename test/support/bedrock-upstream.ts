import { encodeEventMessage } from "../../src/providers/bedrock/event-stream.ts";
import { signV4, type AwsCredentials } from "../../src/providers/bedrock/sigv4.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";

/** The usage every scripted answer reports (Bedrock's own field names). */
export const BEDROCK_USAGE = { inputTokens: 11, outputTokens: 7, totalTokens: 23, cacheReadInputTokens: 3, cacheWriteInputTokens: 2 };

export interface BedrockRequest {
  readonly modelId: string;
  readonly stream: boolean;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
  /** The SigV4 signature matched the one recomputed from the request and the credentials. */
  readonly signatureValid: boolean;
}

export interface BedrockUpstream {
  readonly url: string;
  readonly requests: BedrockRequest[];
  stop(): Promise<void>;
}

const text = new TextEncoder();

/**
 * A Bedrock runtime on loopback answering Converse / ConverseStream in the real wire format
 * (JSON; binary event stream written in 7-byte pieces so frames arrive split). It recomputes
 * the SigV4 signature of every request and answers 403 InvalidSignatureException on a mismatch,
 * quoting its canonical string as AWS does. Model ids choose the script: `…throttle…` → 429
 * ThrottlingException, `…badcrc…` → a stream whose third frame fails its checksum; a request
 * with `toolConfig` gets a tool call, one with an image says so.
 */
export async function startBedrockUpstream(credentials: AwsCredentials, awsRegion: string): Promise<BedrockUpstream> {
  const requests: BedrockRequest[] = [];
  const server = await (await currentRuntime()).serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const bytes = new Uint8Array(await request.arrayBuffer());
      const url = new URL(request.url);
      const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(url.pathname);
      if (match === null) return awsError(404, "UnknownOperationException", "unknown operation");
      const signatureValid = await verify(request, url, bytes, credentials, awsRegion);
      const body = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
      const entry = { modelId: decodeURIComponent(match[1]!), stream: match[2] === "converse-stream", body, headers: request.headers, signatureValid };
      requests.push(entry);
      if (!signatureValid) {
        return awsError(403, "InvalidSignatureException", `The request signature we calculated does not match. The Canonical String for this request should have been 'POST ${url.pathname} x-amz-security-token:${request.headers.get("x-amz-security-token")}'`);
      }
      if (entry.modelId.includes("throttle")) return awsError(429, "ThrottlingException", "Too many requests, please wait before trying again.");
      return entry.stream ? streamAnswer(entry) : Response.json(jsonAnswer(entry));
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop() };
}

async function verify(request: Request, url: URL, body: Uint8Array<ArrayBuffer>, credentials: AwsCredentials, awsRegion: string): Promise<boolean> {
  const authorization = request.headers.get("authorization") ?? "";
  const signed = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(";") ?? [];
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const iso = amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z");
  if (!signed.includes("host") || Number.isNaN(Date.parse(iso))) return false;
  const headers: Record<string, string> = {};
  for (const name of signed) if (!["host", "x-amz-date", "x-amz-security-token"].includes(name)) headers[name] = request.headers.get(name) ?? "";
  const token = request.headers.get("x-amz-security-token");
  const expected = await signV4(
    { method: request.method, url, headers, body, region: awsRegion, service: "bedrock", now: new Date(iso) },
    { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, ...(token ? { sessionToken: token } : {}) },
  );
  return expected["authorization"] === authorization && token === (credentials.sessionToken ?? null);
}

function awsError(status: number, type: string, message: string): Response {
  return Response.json({ message }, { status, headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } });
}

function firstToolName(body: Record<string, unknown>): string | undefined {
  const tools = (body["toolConfig"] as { tools?: { toolSpec: { name: string } }[] } | undefined)?.tools;
  return tools?.[0]?.toolSpec.name;
}

function replyText(body: Record<string, unknown>): string {
  const messages = body["messages"] as { content: Record<string, unknown>[] }[];
  const image = messages.flatMap((m) => m.content).find((block) => "image" in block)?.["image"] as { format: string } | undefined;
  return image ? `I see a ${image.format} image.` : "Hello from Bedrock.";
}

function jsonAnswer(entry: BedrockRequest): unknown {
  const tool = firstToolName(entry.body);
  const content = tool !== undefined
    ? [{ text: "Let me check." }, { toolUse: { toolUseId: "tooluse_abc123", name: tool, input: { city: "Paris" } } }]
    : [{ text: replyText(entry.body) }];
  return {
    output: { message: { role: "assistant", content } },
    stopReason: tool !== undefined ? "tool_use" : "end_turn",
    usage: BEDROCK_USAGE,
    metrics: { latencyMs: 12 },
  };
}

function event(type: string, payload: unknown): Uint8Array {
  return encodeEventMessage({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, text.encode(JSON.stringify(payload)));
}

function streamAnswer(entry: BedrockRequest): Response {
  const tool = firstToolName(entry.body);
  const frames: Uint8Array[] = [event("messageStart", { role: "assistant" })];
  if (tool !== undefined) {
    frames.push(
      event("contentBlockStart", { contentBlockIndex: 0, start: { toolUse: { toolUseId: "tooluse_abc123", name: tool } } }),
      event("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: '{"ci' } } }),
      event("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: 'ty":"Paris"}' } } }),
      event("contentBlockStop", { contentBlockIndex: 0 }),
    );
  } else {
    const [first, second] = [replyText(entry.body).slice(0, 6), replyText(entry.body).slice(6)];
    frames.push(
      event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: first } }),
      event("futureEventType", { anything: true }),
      event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: second } }),
      event("contentBlockStop", { contentBlockIndex: 0 }),
    );
  }
  frames.push(
    event("messageStop", { stopReason: tool !== undefined ? "tool_use" : "end_turn" }),
    event("metadata", { usage: BEDROCK_USAGE, metrics: { latencyMs: 12 } }),
  );
  if (entry.modelId.includes("badcrc")) frames[2] = corrupt(frames[2]!);
  const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  frames.reduce((at, f) => (all.set(f, at), at + f.length), 0);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= all.length) return controller.close();
      controller.enqueue(all.slice(at, (at += 7)));
    },
  });
  return new Response(body, { headers: { "content-type": "application/vnd.amazon.eventstream" } });
}

function corrupt(frame: Uint8Array): Uint8Array {
  const copy = frame.slice();
  copy[copy.length - 6]! ^= 0x20;
  return copy;
}
