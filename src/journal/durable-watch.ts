/**
 * What a server crash may still take back: batches committed without waiting for the disk
 * (PostgreSQL `synchronous_commit = off`) until a durable commit made after them returns (it
 * flushes the write-ahead log past them). When a write fails in a way that may mean the server
 * went down, the batches not known durable are handed back to be written again; every journal
 * write is idempotent, so writing one that did survive changes nothing.
 */
export interface DurableWatch<T> {
  /** A batch was committed without waiting for the disk. */
  written(items: readonly T[]): void;
  /** A durable commit begins; call the returned function once it succeeded. */
  durable(): () => void;
  /** The batches not known durable, forgotten here (to be written again). */
  takeBack(): T[];
  /** Items not known durable. */
  readonly size: number;
}

/** A watch with nothing written yet. */
export function createDurableWatch<T>(): DurableWatch<T> {
  let seq = 0;
  let size = 0;
  const pending: Array<{ seq: number; items: readonly T[] }> = [];
  return {
    written(items) {
      if (items.length === 0) return;
      pending.push({ seq: ++seq, items });
      size += items.length;
    },
    durable() {
      const before = seq;
      return () => {
        while (pending.length > 0 && pending[0]!.seq <= before) size -= pending.shift()!.items.length;
      };
    },
    takeBack() {
      const items = pending.flatMap((batch) => batch.items);
      pending.length = 0;
      size = 0;
      return items;
    },
    get size() {
      return size;
    },
  };
}
