import assert from "node:assert/strict";
import { createServer } from "node:net";

/**
 * A loopback port nothing listens on: bound to port 0, then released. Free for a server the
 * test starts next, or a dead address for an upstream that refuses connections.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === "object");
  return address.port;
}
