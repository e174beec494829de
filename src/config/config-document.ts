/** A line and a column in a text, both counted from 1. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** A parsed config text (JSONC or YAML): its value, and where each part of it is written. */
export interface ConfigDocument {
  readonly value: unknown;
  /**
   * Where the value at `path` is written (for an object member: its key), or, when the path
   * does not exist in the text, its nearest ancestor that does.
   */
  locate(path: ReadonlyArray<PropertyKey>): TextPosition;
}

/** Config text that does not parse: in which language, where it breaks and why. */
export class ConfigSyntaxError extends SyntaxError {
  constructor(
    /** `JSON` or `YAML`, as in "invalid YAML: …". */
    readonly language: string,
    readonly position: TextPosition,
    readonly reason: string,
  ) {
    super(`invalid ${language} at line ${position.line}, column ${position.column}: ${reason}`);
    this.name = "ConfigSyntaxError";
  }
}
