import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";
import { describe, WEATHER, WEATHER_PROMPT, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * Mastra (`@mastra/core`): an agent with one tool on an OpenAI-compatible model config (Mastra's
 * own way to name a gateway: an id, the base URL and the key), `generate` or `stream` up to
 * three steps.
 */
export function mastra(stream: boolean): ClientDriver {
  return {
    name: `Mastra agent (${stream ? "stream" : "generate"})`,
    packageName: "@mastra/core",
    async run(endpoint: ClientEndpoint): Promise<ClientResult> {
      const calls: string[] = [];
      const weather = createTool({
        id: WEATHER.name,
        description: WEATHER.description,
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }: { city: string }) => (calls.push(JSON.stringify({ city })), WEATHER.result(city)),
      });
      const agent = new Agent({
        id: "weather",
        name: "Weather",
        instructions: "Answer with the weather tool.",
        model: { providerId: "gateway", modelId: endpoint.model, url: endpoint.openaiBaseUrl, apiKey: endpoint.openaiKey },
        tools: { [WEATHER.name]: weather },
      });
      try {
        let text: string;
        if (stream) {
          const result = await agent.stream(WEATHER_PROMPT, { maxSteps: 3 });
          text = await result.text;
        } else text = (await agent.generate(WEATHER_PROMPT, { maxSteps: 3 })).text;
        return { finished: text !== "", received: `${text} | ${WEATHER.name}(${calls.join(", ")})` };
      } catch (error) {
        return { finished: false, received: "", detail: describe(error) };
      }
    },
  };
}
