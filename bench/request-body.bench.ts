/** Micro-benchmark of request body inspection and rewrite: `node_modules/.bin/bun bench/request-body.bench.ts`. */
import { Bench } from "tinybench";
import { inspectRequestBody, rewriteRequestBody } from "../src/relay/request-body.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A ~1 KB chat request: system prompt, a short conversation, one tool. */
const BODY = enc.encode(
  JSON.stringify({
    model: "gpt-4o",
    stream: true,
    max_tokens: 512,
    temperature: 0.2,
    messages: [
      { role: "system", content: "You are a concise assistant for an e-commerce support team. Answer in two sentences at most, cite the order id when one is given, and never invent tracking numbers." },
      { role: "user", content: "Hi! My order #48213 was supposed to arrive on Tuesday but the tracking page has not changed since Saturday." },
      { role: "assistant", content: "Sorry about the delay on order #48213. Let me look up the latest carrier scan for you." },
      { role: "user", content: "Thanks. Also, can I change the delivery address to my office? It's 12 Rue des Lilas, 75011 Paris." },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "lookup_order",
          description: "Look up an order's status and carrier events by order id.",
          parameters: { type: "object", properties: { order_id: { type: "string", description: "The order id, digits only." } }, required: ["order_id"] },
        },
      },
    ],
    user: "customer-8842",
  }),
);

let sink = 0;
const bench = new Bench({ name: `request body (${BODY.length} bytes)`, time: 1000 });
bench
  .add("inspectRequestBody", () => {
    const r = inspectRequestBody(BODY);
    if (r.ok) sink += r.fields.maxOutputTokens ?? 0;
  })
  .add("rewrite: no change (same object)", () => {
    sink += rewriteRequestBody(BODY, { model: "gpt-4o" }).length;
  })
  .add("rewrite: model", () => {
    sink += rewriteRequestBody(BODY, { model: "gpt-4o-2024-08-06" }).length;
  })
  .add("rewrite: model + include_usage", () => {
    sink += rewriteRequestBody(BODY, { model: "gpt-4o-2024-08-06", addIncludeUsage: true }).length;
  })
  .add("inspect + rewrite (relay path)", () => {
    const r = inspectRequestBody(BODY);
    if (r.ok) sink += rewriteRequestBody(BODY, { model: "gpt-4o-2024-08-06", addIncludeUsage: !r.fields.includeUsage }).length;
  })
  .add("reference: JSON.parse + JSON.stringify + encode", () => {
    const body = JSON.parse(dec.decode(BODY)) as Record<string, unknown>;
    body["model"] = "gpt-4o-2024-08-06";
    body["stream_options"] = { include_usage: true };
    sink += enc.encode(JSON.stringify(body)).length;
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
if (sink === 0) console.log("(sink)");
