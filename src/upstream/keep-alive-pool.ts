import type { Socket } from "node:net";

/** A kept-alive connection waiting in the pool. */
interface Idle {
  readonly socket: Socket;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly evict: () => void;
}

/**
 * Idle kept-alive connections per origin: at most `maxIdlePerOrigin` each, closed after `idleMs`
 * idle or as soon as the server closes them (or fails them) while they wait. The most recently
 * released one is taken first.
 */
export class KeepAlivePool {
  private readonly pools = new Map<string, Idle[]>();

  constructor(
    private readonly idleMs: number,
    private readonly maxIdlePerOrigin: number,
  ) {}

  /** An open idle connection to `origin` (a URL origin), taken out of the pool; undefined when none. */
  take(origin: string): Socket | undefined {
    const pool = this.pools.get(origin);
    while (pool && pool.length > 0) {
      const idle = pool.pop()!;
      clearTimeout(idle.timer);
      idle.socket.removeListener("close", idle.evict).removeListener("error", idle.evict);
      if (!idle.socket.destroyed && idle.socket.readyState === "open") return idle.socket;
      idle.socket.destroy();
    }
    return undefined;
  }

  /** Puts a connection whose exchange ended cleanly back for reuse (or closes it when the pool is full). */
  release(origin: string, socket: Socket): void {
    let pool = this.pools.get(origin);
    if (!pool) this.pools.set(origin, (pool = []));
    if (pool.length >= this.maxIdlePerOrigin) return void socket.destroy();
    const evict = () => {
      const at = pool.findIndex((idle) => idle.socket === socket);
      if (at >= 0) clearTimeout(pool.splice(at, 1)[0]!.timer);
      socket.destroy();
    };
    const timer = setTimeout(evict, this.idleMs);
    (timer as { unref?: () => void }).unref?.();
    socket.once("close", evict).once("error", evict);
    socket.resume(); // a server's stray bytes or FIN must be seen while idle
    pool.push({ socket, timer, evict });
  }
}
