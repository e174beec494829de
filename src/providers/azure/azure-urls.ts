import { joinUrl } from "../http-provider.ts";

/** Public routes served per deployment in the classic API (the others take the model in the body). */
const DEPLOYMENT_ROUTES = new Set(["/v1/chat/completions", "/v1/completions", "/v1/embeddings"]);

/** Whether a public route's Azure URL names the deployment (so needs the body's model). */
export function namesDeployment(api: "deployments" | "v1", path: string): boolean {
  return api === "deployments" && DEPLOYMENT_ROUTES.has(path);
}

/**
 * The Azure OpenAI URL for a public route. Classic: /openai/deployments/{deployment}/chat/completions?api-version=…
 * (Responses: /openai/responses?api-version=…); v1: /openai/v1/… with the model in the body.
 */
export function azureUrl(baseUrl: string, api: "deployments" | "v1", apiVersion: string, path: string, deployment?: string): string {
  const rest = path.replace(/^\/v1\//, "");
  if (api === "v1") return joinUrl(baseUrl, `openai/v1/${rest}`);
  const version = `?api-version=${encodeURIComponent(apiVersion)}`;
  if (deployment === undefined) return joinUrl(baseUrl, `openai/${rest}`) + version;
  return joinUrl(baseUrl, `openai/deployments/${encodeURIComponent(deployment)}/${rest}`) + version;
}
