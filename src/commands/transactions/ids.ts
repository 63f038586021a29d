import { UsageError } from '../../lib/cli/errors.js';

/** Transaction ids are UUIDs (the service makes version 4; any UUID shape is accepted). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A transaction id, lower-case; anything else is exit 2 before a request is sent. */
export function parseTransactionId(value: string): string {
  const text = value.trim();
  if (!UUID.test(text))
    throw new UsageError(
      `ID must be a transaction id, a UUID such as ffa38848-6abc-4d22-b6b0-63fe1780969c, not "${value}"`,
    );
  return text.toLowerCase();
}
