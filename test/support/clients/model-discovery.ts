import Anthropic from "@anthropic-ai/sdk";
import { describe, type ClientDriver, type ClientEndpoint, type ClientResult } from "./client-driver.ts";

/**
 * The official Anthropic SDK discovering models, as a coding agent's model picker does:
 * `models.list()`, then one message to every model listed. The task finishes when each of
 * them answers on /v1/messages.
 */
export const modelDiscovery: ClientDriver = {
  name: "Anthropic SDK (models.list, then a message to each)",
  packageName: "@anthropic-ai/sdk",
  async run(endpoint: ClientEndpoint): Promise<ClientResult> {
    const client = new Anthropic({ apiKey: endpoint.anthropicKey, baseURL: endpoint.anthropicBaseUrl, maxRetries: 0, timeout: 20_000 });
    try {
      const listed = (await client.models.list()).data.map((model) => model.id);
      const refused: string[] = [];
      for (const model of listed) {
        try {
          await client.messages.create({ model, max_tokens: 256, messages: [{ role: "user", content: "Say done." }] });
        } catch (error) {
          refused.push(`${model}: ${describe(error)}`);
        }
      }
      if (listed.length === 0 || refused.length > 0) return { finished: false, received: "", detail: `listed ${listed.join(", ")}; refused ${refused.join("; ")}` };
      return { finished: true, received: "Done: every model listed answered" };
    } catch (error) {
      return { finished: false, received: "", detail: describe(error) };
    }
  },
};
