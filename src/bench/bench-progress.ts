/** Progress on stderr: one updating line on a terminal, plain lines otherwise. */
export interface Progress {
  /** Frequent status (rounds): shown in place on a TTY, dropped otherwise. */
  update(text: string): void;
  /** A milestone (a point finished): always printed as its own line. */
  note(text: string): void;
  /** Clears the updating line. */
  done(): void;
}

/** Writes to `stream` (stderr by default); quiet prints nothing. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet) return { update() {}, note() {}, done() {} };
  const tty = stream.isTTY === true;
  let shown = false;
  const clear = () => {
    if (shown) stream.write("\r\x1b[2K");
    shown = false;
  };
  return {
    update(text) {
      if (!tty) return;
      const width = (stream.columns ?? 100) - 1;
      stream.write(`\r\x1b[2K${text.length > width ? text.slice(0, width) : text}`);
      shown = true;
    },
    note(text) {
      clear();
      stream.write(`${text}\n`);
    },
    done: clear,
  };
}
