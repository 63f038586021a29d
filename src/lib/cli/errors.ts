// Errors a command can end with. cli.ts maps each to its exit code and message; nothing else exits.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Exit 2: bad flags or values, missing input with no prompt allowed, wrong mode. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Exit 1 (refused) or 4 (401): the service answered with an error document. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly document: unknown,
  ) {
    super(`the service answered ${status}`, status === 401 ? 4 : 1);
  }
}

/** Exit 130: interrupted, also inside a prompt. */
export class InterruptedError extends CliError {
  constructor() {
    super('interrupted', 130);
  }
}

interface ErrorDocument {
  errors?: { title?: string; detail?: string; source?: { pointer?: string; parameter?: string } }[];
}

/** One line per error, with the field it points at. */
export function errorLines(document: unknown, status: number): string[] {
  const errors = (document as ErrorDocument | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0)
    return [`the service answered ${status} without an error document`];
  return errors.map((e) => {
    const field = e.source?.pointer?.replace(/^\/data\/attributes\//, '') ?? e.source?.parameter;
    const detail = e.detail ?? e.title ?? 'error';
    if (!field || field === '/data') return `${e.title ? `${e.title}: ` : ''}${detail}`;
    return `${field}: ${detail.startsWith(`${field} `) ? detail.slice(field.length + 1) : detail}`;
  });
}
