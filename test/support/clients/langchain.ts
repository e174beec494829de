import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { describe, WEATHER, WEATHER_PROMPT, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * LangChain JS: `ChatOpenAI` (`@langchain/openai`) or `ChatAnthropic` (`@langchain/anthropic`)
 * with one tool bound, in the usual loop: call the model, run the tool calls it asks for, call
 * it again with their results. `invoke` (JSON) or `stream` (chunks concatenated).
 */
export function langChain(provider: "openai" | "anthropic", stream: boolean): ClientDriver {
  return {
    name: `LangChain ${provider === "openai" ? "ChatOpenAI" : "ChatAnthropic"}${stream ? " (streamed)" : ""}`,
    packageName: provider === "openai" ? "@langchain/openai" : "@langchain/anthropic",
    async run(endpoint: ClientEndpoint): Promise<ClientResult> {
      const calls: string[] = [];
      const weather = tool(async ({ city }: { city: string }) => (calls.push(JSON.stringify({ city })), WEATHER.result(city)), {
        name: WEATHER.name,
        description: WEATHER.description,
        schema: z.object({ city: z.string() }),
      });
      const chat =
        provider === "openai"
          ? new ChatOpenAI({ model: endpoint.model, apiKey: endpoint.openaiKey, configuration: { baseURL: endpoint.openaiBaseUrl }, maxRetries: 2, timeout: 20_000 })
          : new ChatAnthropic({ model: endpoint.model, apiKey: endpoint.anthropicKey, anthropicApiUrl: endpoint.anthropicBaseUrl, maxTokens: 1024, maxRetries: 2 });
      const model = chat.bindTools([weather]);
      const ask = async (messages: BaseMessage[]): Promise<AIMessage> => {
        if (!stream) return await model.invoke(messages);
        let whole: AIMessageChunk | undefined;
        for await (const chunk of await model.stream(messages)) whole = whole === undefined ? chunk : whole.concat(chunk);
        return new AIMessage({ content: whole?.content ?? "", tool_calls: whole?.tool_calls ?? [] });
      };
      try {
        const messages: BaseMessage[] = [new HumanMessage(WEATHER_PROMPT)];
        for (let turn = 0; turn < 4; turn++) {
          const reply = await ask(messages);
          messages.push(reply);
          if ((reply.tool_calls ?? []).length === 0) {
            const text = typeof reply.content === "string" ? reply.content : reply.content.map((part) => ("text" in part ? part.text : "")).join("");
            return { finished: text !== "", received: `${text} | ${WEATHER.name}(${calls.join(", ")})` };
          }
          for (const call of reply.tool_calls ?? []) messages.push(new ToolMessage({ content: String(await weather.invoke(call.args as { city: string })), tool_call_id: call.id ?? "" }));
        }
        return { finished: false, received: "", detail: "no final answer in 4 turns" };
      } catch (error) {
        return { finished: false, received: "", detail: describe(error) };
      }
    },
  };
}
