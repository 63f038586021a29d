// What an API key must be to travel in the X-Authorization header: checked where keys are saved
// (config, profiles) and again where they are sent.
/**
 * Whether a key can travel in an HTTP header exactly as it is: printable ASCII only (no line
 * break, no other control character, nothing beyond ASCII), no space at either end (a header
 * drops those).
 */
export const isSendableKey = (key: string): boolean => /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key);

/** Why a key cannot be sent, naming where it came from and never quoting it. */
export const unsendableKey = (where: string): string =>
  `the API key ${where} has a character an HTTP header cannot carry (a line break, another control character, a space at an end, or a character beyond ASCII); check how it was copied`;
