import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { describe, WEATHER, WEATHER_PROMPT, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * The OpenAI Agents SDK (`@openai/agents`): an agent with one function tool, run to its final
 * output on a Responses model or a chat-completions model, streamed or not. Its client is the
 * official `openai` SDK pointed at the run's base URL; tracing (which exports to OpenAI) is off.
 */
export function openAiAgents(api: "responses" | "chat", stream: boolean): ClientDriver {
  return {
    name: `Agents SDK (${api === "responses" ? "Responses" : "chat completions"}${stream ? ", streamed" : ""})`,
    packageName: "@openai/agents",
    async run(endpoint: ClientEndpoint): Promise<ClientResult> {
      setTracingDisabled(true);
      const calls: string[] = [];
      const weather = tool({
        name: WEATHER.name,
        description: WEATHER.description,
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => (calls.push(JSON.stringify({ city })), WEATHER.result(city)),
      });
      const client = new OpenAI({ apiKey: endpoint.openaiKey, baseURL: endpoint.openaiBaseUrl, maxRetries: 2, timeout: 20_000 });
      const model = api === "responses" ? new OpenAIResponsesModel(client, endpoint.model) : new OpenAIChatCompletionsModel(client, endpoint.model);
      const agent = new Agent({ name: "Weather", instructions: "Answer with the weather tool.", model, tools: [weather] });
      try {
        let output: unknown;
        if (stream) {
          const result = await run(agent, WEATHER_PROMPT, { stream: true, maxTurns: 4 });
          for await (const _event of result) {
            // Read every event, as an app rendering the stream does.
          }
          await result.completed;
          output = result.finalOutput;
        } else output = (await run(agent, WEATHER_PROMPT, { maxTurns: 4 })).finalOutput;
        return { finished: typeof output === "string" && output !== "", received: `${String(output)} | ${WEATHER.name}(${calls.join(", ")})` };
      } catch (error) {
        return { finished: false, received: "", detail: describe(error) };
      }
    },
  };
}
