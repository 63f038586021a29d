// What any JSON document sent to the service may be, checked on its text before it is parsed:
// the API refuses deeper nesting, and the command line refuses it in --data before sending.
/** The deepest nesting of arrays and objects a request document may have. */
export const MAX_DEPTH = 64;

/**
 * A value from a JSON document or the command line as text: a primitive as String() writes it, an
 * object or array as its JSON (never "[object Object]").
 */
export const textOf = (value: unknown): string =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

/** Whether a string is valid Unicode: no lone surrogate (String#isWellFormed, Node 20 and later). */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Whether the text opens more than `max` arrays or objects inside one another, counting `[` and `{`
 * outside strings. One pass, no recursion; text that is not JSON may be answered either way (the
 * parser refuses it next).
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return false; // unterminated: not JSON
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
