// Where stores are, as the command line names them and shows them: a file path or a postgres://
// URL (parseLocation), and any text with the passwords of its URLs hidden (redact). The store
// decides both; the command line reaches them here, through the runtime, like everything else of
// the store.
export { parseLocation, redact } from '../store/store.js';
/** How long a write waits for another process's SQLite lock by default (BILLING_BUSY_MS). */
export { DEFAULT_BUSY_MS } from '../store/store.js';
