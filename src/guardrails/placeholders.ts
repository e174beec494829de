import { trailingRun, type Detector } from "./detector.ts";

const PLACEHOLDER = /\[([A-Z][A-Z0-9_]*)_(\d{1,6})\]/g;
const PLACEHOLDER_CHARS = (code: number) => code === 91 || code === 95 || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
const MAX_PLACEHOLDER = 48;

/**
 * The typed placeholders of one call (`[EMAIL_1]`, `[IBAN_2]`): the same value gets the same
 * placeholder wherever it appears in the call, so the model can still tell values apart. The
 * values of pseudonymised matches are kept so that they can be put back into the answer; they
 * live in this object only, which lives as long as the call.
 */
export class PlaceholderBook {
  private readonly byValue = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  private readonly originals = new Map<string, string>();

  /** The placeholder for `value` (of a detector with `label`); `restorable` keeps the value to restore it in the answer. */
  placeholder(label: string, value: string, restorable: boolean): string {
    const key = `${label}\u0000${value}`;
    let placeholder = this.byValue.get(key);
    if (placeholder === undefined) {
      const n = (this.counts.get(label) ?? 0) + 1;
      this.counts.set(label, n);
      placeholder = `[${label}_${n}]`;
      this.byValue.set(key, placeholder);
    }
    if (restorable) this.originals.set(placeholder, value);
    return placeholder;
  }

  /** Whether any value is to be restored in the answer. */
  get restores(): boolean {
    return this.originals.size > 0;
  }

  /** The original value behind a pseudonymised placeholder, or undefined. */
  original(placeholder: string): string | undefined {
    return this.originals.get(placeholder);
  }

  /**
   * The placeholders to restore, as a detector: it matches `[TYPE_n]` of this call's
   * pseudonymised values, and in a stream holds back a trailing `[TYP…` that may become one.
   */
  restorer(): Detector {
    const detector: Detector = {
      id: "placeholder",
      label: "",
      priority: 0,
      maxLength: MAX_PLACEHOLDER,
      find: (text, from, out) => {
        PLACEHOLDER.lastIndex = from;
        for (let m = PLACEHOLDER.exec(text); m !== null; m = PLACEHOLDER.exec(text)) {
          if (this.originals.has(m[0])) out.push({ start: m.index, end: m.index + m[0].length, detector });
        }
      },
      pending(text) {
        const run = trailingRun(text, PLACEHOLDER_CHARS, MAX_PLACEHOLDER);
        const open = text.indexOf("[", run);
        return open < 0 ? text.length : open;
      },
    };
    return detector;
  }
}
