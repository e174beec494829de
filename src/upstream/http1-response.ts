/**
 * An incremental HTTP/1.1 response parser: fed the socket's chunks as they arrive, it reports the
 * head once, then body pieces (slices of the chunks, never copies), then the end. Bodies are
 * framed by `transfer-encoding: chunked` (chunk extensions and trailers skipped), by
 * `content-length`, or by the connection's close. 1xx interim responses are skipped.
 */

/** A parsed status line and header block. */
export interface ResponseHead {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  /** False when the response asks to close the connection (or is framed by the close). */
  readonly keepAlive: boolean;
}

/** What the parser reports; `malformed` stops it (the connection can no longer be trusted). */
export interface ResponseSink {
  head(head: ResponseHead): void;
  body(piece: Uint8Array): void;
  end(): void;
  malformed(message: string): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF_CRLF = Buffer.from("\r\n\r\n");
type State = "head" | "length" | "size" | "data" | "dataEnd" | "trailer" | "close" | "done";

/** Parses one response; `feed` every chunk, `closed` when the socket ends. */
export class Http1ResponseParser {
  private state: State = "head";
  private pending: Buffer | undefined;
  private remaining = 0;

  constructor(
    private readonly sink: ResponseSink,
    /** HEAD requests: the response has no body whatever its headers say. */
    private readonly bodiless: boolean,
  ) {}

  /** True once the body ended (the connection may carry the next request). */
  get done(): boolean {
    return this.state === "done";
  }

  /** Unparsed bytes past the response's end (a misbehaving server; the connection is not reused). */
  get leftover(): boolean {
    return this.pending !== undefined && this.pending.byteLength > 0;
  }

  feed(chunk: Buffer): void {
    let data = this.pending && this.pending.byteLength > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (data.byteLength > 0) {
      const consumed = this.step(data);
      if (consumed < 0) {
        this.pending = data;
        return;
      }
      if (this.state === "done") {
        this.pending = data.subarray(consumed);
        return;
      }
      data = data.subarray(consumed);
    }
  }

  /** The socket ended: the body's end if framed by the close, otherwise nothing (the caller errors). */
  closed(): boolean {
    if (this.state !== "close") return this.state === "done";
    this.state = "done";
    this.sink.end();
    return true;
  }

  /** Handles the front of `data`; returns the bytes consumed, or -1 when more bytes are needed. */
  private step(data: Buffer): number {
    switch (this.state) {
      case "head":
        return this.parseHead(data);
      case "length":
      case "data": {
        const take = Math.min(this.remaining, data.byteLength);
        this.sink.body(data.subarray(0, take));
        this.remaining -= take;
        if (this.remaining === 0) this.state === "length" ? this.finish() : (this.state = "dataEnd");
        return take;
      }
      case "dataEnd":
        if (data.byteLength < 2) return -1;
        if (data[0] !== 13 || data[1] !== 10) return this.fail("a chunk is not followed by CRLF");
        this.state = "size";
        return 2;
      case "size": {
        const line = lineEnd(data);
        if (line < 0) return data.byteLength > 1024 ? this.fail("a chunk size line is too long") : -1;
        const text = data.toString("latin1", 0, line).split(";")[0]!.trim();
        if (!/^[0-9a-fA-F]{1,15}$/.test(text)) return this.fail(`invalid chunk size ${JSON.stringify(text.slice(0, 20))}`);
        this.remaining = parseInt(text, 16);
        this.state = this.remaining === 0 ? "trailer" : "data";
        return line + 2;
      }
      case "trailer": {
        const line = lineEnd(data);
        if (line < 0) return data.byteLength > MAX_HEAD_BYTES ? this.fail("the trailers are too long") : -1;
        if (line === 0) this.finish();
        return line + 2;
      }
      case "close":
        this.sink.body(data);
        return data.byteLength;
      case "done":
        return 0;
    }
  }

  private parseHead(data: Buffer): number {
    const end = data.indexOf(CRLF_CRLF);
    if (end < 0) return data.byteLength > MAX_HEAD_BYTES ? this.fail("the response head is too long") : -1;
    const lines = data.toString("latin1", 0, end).split("\r\n");
    const status = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]!);
    if (!status) return this.fail(`invalid status line ${JSON.stringify(lines[0]!.slice(0, 40))}`);
    const code = Number(status[2]);
    const headers = new Headers();
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) return this.fail(`invalid header line ${JSON.stringify(line.slice(0, 40))}`);
      try {
        headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      } catch {
        return this.fail(`invalid header ${JSON.stringify(line.slice(0, colon).slice(0, 40))}`);
      }
    }
    const consumed = end + 4;
    if (code < 200) return consumed; // 100 Continue and friends: the real head follows
    const connection = headers.get("connection")?.toLowerCase() ?? "";
    let keepAlive = status[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    const chunked = /(^|,)\s*chunked\s*$/i.test(headers.get("transfer-encoding") ?? "");
    const length = headers.get("content-length");
    if (this.bodiless || code === 204 || code === 304) this.state = "done";
    else if (chunked) this.state = "size";
    else if (length !== null) {
      if (!/^\d{1,15}$/.test(length.trim())) return this.fail(`invalid content-length ${JSON.stringify(length.slice(0, 20))}`);
      this.remaining = Number(length);
      this.state = this.remaining === 0 ? "done" : "length";
    } else {
      this.state = "close";
      keepAlive = false;
    }
    this.sink.head({ status: code, statusText: status[3] ?? "", headers, keepAlive });
    if (this.state === "done") this.sink.end();
    return consumed;
  }

  private finish(): void {
    this.state = "done";
    this.sink.end();
  }

  private fail(message: string): number {
    this.state = "done";
    this.pending = undefined;
    this.sink.malformed(message);
    return 0;
  }
}

function lineEnd(data: Buffer): number {
  const at = data.indexOf(10);
  if (at < 0) return -1;
  return data[at - 1] === 13 ? at - 1 : -1;
}
