import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool, type LanguageModel } from "ai";
import { z } from "zod";
import { describe, WEATHER, WEATHER_PROMPT, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * The Vercel AI SDK (`ai`): `generateText` or `streamText` with one tool and up to three steps,
 * through `@ai-sdk/openai` (its default, the Responses API) or `@ai-sdk/anthropic`.
 */
export function vercelAi(provider: "openai" | "anthropic", stream: boolean): ClientDriver {
  return {
    name: `Vercel AI SDK (${provider === "openai" ? "@ai-sdk/openai, Responses" : "@ai-sdk/anthropic"}${stream ? ", streamText" : ", generateText"})`,
    packageName: "ai",
    async run(endpoint: ClientEndpoint): Promise<ClientResult> {
      const calls: string[] = [];
      const model: LanguageModel =
        provider === "openai"
          ? createOpenAI({ baseURL: endpoint.openaiBaseUrl, apiKey: endpoint.openaiKey })(endpoint.model)
          : createAnthropic({ baseURL: `${endpoint.anthropicBaseUrl}/v1`, apiKey: endpoint.anthropicKey })(endpoint.model);
      const tools = {
        [WEATHER.name]: tool({
          description: WEATHER.description,
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }: { city: string }) => (calls.push(JSON.stringify({ city })), WEATHER.result(city)),
        }),
      };
      const request = { model, tools, prompt: WEATHER_PROMPT, stopWhen: stepCountIs(3), maxRetries: 2 };
      try {
        let text: string;
        if (stream) {
          const result = streamText(request);
          for await (const part of result.fullStream) if (part.type === "error") throw part.error;
          text = await result.text;
        } else text = (await generateText(request)).text;
        return { finished: text !== "", received: `${text} | ${WEATHER.name}(${calls.join(", ")})` };
      } catch (error) {
        return { finished: false, received: "", detail: describe(error) };
      }
    },
  };
}
