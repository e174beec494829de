import { connect, type Socket } from "node:net";
import type { Provider, UpstreamEndpoint } from "../providers/provider.ts";
import { RelayError } from "../shared/relay-error.ts";

/** How a TCP connection attempt ended. */
export type ConnectResult = "connected" | "timeout" | "refused";

/** Opens a TCP socket to an endpoint (node:net `connect` by default; injectable for tests). */
export type OpenSocket = (endpoint: UpstreamEndpoint) => Socket;

/**
 * Tries a TCP connection (no TLS, nothing sent) and closes it: "connected", "timeout" after
 * `timeoutMs`, or "refused" on any connection error (refused, unreachable, unknown host).
 */
export function tcpConnect(endpoint: UpstreamEndpoint, timeoutMs: number, open: OpenSocket = defaultOpen): Promise<ConnectResult> {
  return new Promise((resolve) => {
    const socket = open(endpoint);
    const done = (result: ConnectResult) => {
      clearTimeout(timer);
      socket.removeAllListeners("connect");
      socket.removeAllListeners("error");
      socket.on("error", () => {});
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(done, timeoutMs, "timeout");
    socket.once("connect", () => done("connected"));
    socket.once("error", () => done("refused"));
  });
}

const defaultOpen: OpenSocket = (endpoint) => connect({ host: endpoint.hostname, port: endpoint.port });

/** Enforces `connectTimeoutMs` where fetch cannot: a TCP check while a provider's pool is cold. */
export interface ConnectCheck {
  /**
   * Undefined when `provider` answered within the keep-alive window (or has no endpoint):
   * nothing to wait for. Otherwise a promise that resolves once the upstream accepts a TCP
   * connection within `timeoutMs` (default: the provider's `connectTimeoutMs`), or rejects with
   * RelayError 504 `upstream_timeout` / 502 `upstream_unreachable`.
   */
  before(provider: Provider, timeoutMs?: number): Promise<void> | undefined;
  /** Records an upstream response from `providerId`: its pooled connection is warm. */
  answered(providerId: string): void;
}

/** Options of {@link createConnectCheck}. */
export interface ConnectCheckOptions {
  /** How long after a response a pooled connection is taken to be alive (default 4000 ms). */
  readonly warmMs?: number;
  readonly open?: OpenSocket;
  /** Clock in ms (default performance.now). */
  readonly now?: () => number;
}

/** Creates the check, one per relay; per-provider warmth is kept in memory. */
export function createConnectCheck(options: ConnectCheckOptions = {}): ConnectCheck {
  const warmMs = options.warmMs ?? 4000;
  const now = options.now ?? (() => performance.now());
  const lastAnswer = new Map<string, number>();
  return {
    before(provider, timeoutMs = provider.connectTimeoutMs) {
      const endpoint = provider.endpoint;
      if (endpoint === undefined) return undefined;
      const last = lastAnswer.get(provider.id);
      if (last !== undefined && now() - last < warmMs) return undefined;
      return tcpConnect(endpoint, timeoutMs, options.open).then((result) => {
        if (result === "timeout") {
          throw new RelayError(504, "upstream_timeout", `Could not connect to provider \`${provider.id}\` within ${timeoutMs} ms`);
        }
        if (result === "refused") throw new RelayError(502, "upstream_unreachable", `Provider \`${provider.id}\` is unreachable`);
      });
    },
    answered(providerId) {
      lastAnswer.set(providerId, now());
    },
  };
}
