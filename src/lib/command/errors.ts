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

/** Exit 3: the service could not be reached. */
export class UnreachableError extends CliError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** Exit 130: interrupted, also inside a prompt. */
export class InterruptedError extends CliError {
  constructor() {
    super('interrupted', 130);
  }
}
