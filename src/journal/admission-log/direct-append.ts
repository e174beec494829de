import { closeSync, constants, openSync, readSync, write, writeSync } from "node:fs";

/** The unit of a direct write: the page size, a multiple of every common logical block size. */
export const DIRECT_BLOCK_BYTES = 4096;

/** Memory alignments tried for the staging buffer (the runtime gives no aligned allocation). */
const ALIGNMENT_STEP = 16;

/**
 * Appends to zero-filled files opened `O_DIRECT | O_DSYNC`: a durable write goes to the device
 * without passing through the page cache (on some VMs of this kind ~15 µs less CPU and latency
 * per write than a buffered `O_DSYNC` write of the same bytes, on others the same; docs/performance.md).
 * Direct writes cover whole blocks from block-aligned memory, so the file's last partial
 * block is kept in an aligned staging buffer and each append rewrites the blocks it touches:
 * the bytes already there unchanged, zeros after the new end (so a reader still finds the end
 * at the first zero byte). A buffered write of the same record flushes the same page.
 *
 * One stager per log: appends are contiguous and one at a time (the next is staged only once
 * the previous one settled), which is how the admission log writes.
 */
export class DirectStager {
  private buffer: Uint8Array;
  /** The file whose tail block the buffer holds. */
  private fd = -1;
  /** File offset of the block held at the buffer's start. */
  private blockAt = 0;
  /** Bytes of that block already written (0 to DIRECT_BLOCK_BYTES − 1). */
  private held = 0;
  /** The write staged and not yet settled: its end offset. */
  private pendingEnd = -1;

  private constructor(buffer: Uint8Array) {
    this.buffer = buffer;
  }

  /**
   * A stager for files like `probePath` (an existing file of at least one block, read to test
   * the alignment), or undefined where direct I/O is not available (no `O_DIRECT` on this
   * platform or file system, or no aligned memory found).
   */
  static forFilesLike(probePath: string, capacity = 64 * 1024): DirectStager | undefined {
    const direct = constants.O_DIRECT;
    if (typeof direct !== "number" || direct === 0) return undefined;
    let fd: number;
    try {
      fd = openSync(probePath, constants.O_RDONLY | direct);
    } catch {
      return undefined; // e.g. tmpfs refuses O_DIRECT
    }
    try {
      const buffer = alignedBuffer(fd, roundUp(capacity));
      return buffer && new DirectStager(buffer);
    } finally {
      closeSync(fd);
    }
  }

  /** Opens `path` (a zero-filled file) for direct durable appends. */
  static open(path: string): number {
    return openSync(path, constants.O_RDWR | constants.O_DSYNC | constants.O_DIRECT!);
  }

  /** Writes `bytes` at `at` (the end of what was appended to `fd`), blocking until durable. */
  appendSync(fd: number, bytes: Uint8Array, at: number): void {
    const { view, position } = this.stage(fd, bytes, at);
    let written: number;
    try {
      written = writeSync(fd, view, 0, view.byteLength, position);
    } catch (error) {
      this.abandon();
      throw error;
    }
    this.settle(written, view.byteLength);
  }

  /** {@link appendSync} on a pool thread. */
  append(fd: number, bytes: Uint8Array, at: number): Promise<void> {
    const { view, position } = this.stage(fd, bytes, at);
    return new Promise<void>((resolve, reject) => {
      write(fd, view, 0, view.byteLength, position, (error, written) => {
        if (error) {
          this.abandon();
          reject(error);
          return;
        }
        try {
          this.settle(written, view.byteLength);
          resolve();
        } catch (failure) {
          reject(failure);
        }
      });
    });
  }

  private stage(fd: number, bytes: Uint8Array, at: number): { view: Uint8Array; position: number } {
    if (this.pendingEnd >= 0) throw new Error("a direct append is still in flight");
    if (fd !== this.fd || at === 0) {
      // A new file (appends start at 0).
      if (at !== 0) throw new Error("direct appends start a file at offset 0");
      this.fd = fd;
      this.blockAt = 0;
      this.held = 0;
    }
    if (at !== this.blockAt + this.held) throw new Error(`direct appends must be contiguous (at ${at}, end ${this.blockAt + this.held})`);
    const end = this.held + bytes.byteLength;
    const length = roundUp(end);
    if (length > this.buffer.byteLength) this.grow(length);
    this.buffer.set(bytes, this.held);
    this.buffer.fill(0, end, length);
    this.pendingEnd = this.blockAt + end;
    return { view: this.buffer.subarray(0, length), position: this.blockAt };
  }

  private settle(written: number, expected: number): void {
    const end = this.pendingEnd;
    this.pendingEnd = -1;
    if (written !== expected) {
      this.fd = -1;
      throw new Error(`short write to the admission log (${written} of ${expected} bytes)`);
    }
    const nextBlockAt = end - (end % DIRECT_BLOCK_BYTES);
    this.buffer.copyWithin(0, nextBlockAt - this.blockAt, end - this.blockAt);
    this.blockAt = nextBlockAt;
    this.held = end - nextBlockAt;
  }

  /** A failed write: the log moves to a fresh file; nothing staged is kept. */
  private abandon(): void {
    this.pendingEnd = -1;
    this.fd = -1;
  }

  private grow(length: number): void {
    const buffer = alignedBuffer(this.fd, length);
    if (!buffer) throw new Error("no aligned memory for a direct write to the admission log");
    buffer.set(this.buffer.subarray(0, this.held));
    this.buffer = buffer;
  }
}

/**
 * A zeroed buffer of `length` bytes at a memory address that direct reads of `fd` accept: each
 * candidate start is tried with a one-block direct read (refused at once, without I/O, when
 * misaligned). Undefined when none is accepted.
 */
function alignedBuffer(fd: number, length: number): Uint8Array | undefined {
  const memory = new ArrayBuffer(length + DIRECT_BLOCK_BYTES);
  for (let offset = 0; offset < DIRECT_BLOCK_BYTES; offset += ALIGNMENT_STEP) {
    const view = new Uint8Array(memory, offset, length);
    try {
      readSync(fd, view, 0, DIRECT_BLOCK_BYTES, 0);
      view.fill(0);
      return view;
    } catch {
      // EINVAL: misaligned; try the next start
    }
  }
  return undefined;
}

function roundUp(bytes: number): number {
  return Math.max(DIRECT_BLOCK_BYTES, Math.ceil(bytes / DIRECT_BLOCK_BYTES) * DIRECT_BLOCK_BYTES);
}
