/**
 * Runs `attempt` until it resolves, waiting between failures (100 ms, doubled up to 1 s), for at
 * most `withinMs`; resolves true once it succeeded, false when the time ran out (the last
 * failure is dropped: the caller says what is left undone).
 */
export async function retryUntil(attempt: () => Promise<unknown>, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, 1000)) {
    try {
      await attempt();
      return true;
    } catch {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(waitMs, left)));
    }
  }
}
