/** OpenSSL's `…:SSL routines:fn:reason:file:line:SSL alert number 116` as `reason (SSL alert number 116)`. */
function opensslReason(message: string): string {
  const match = /SSL routines:[^:]*:([^:]+):[\s\S]*?(SSL alert number \d+)?\s*$/.exec(message);
  if (!match) return message;
  return match[2] ? `${match[1]} (${match[2]})` : (match[1] ?? message);
}

/** Why a request failed, in one line: the error's code and message, and the causes behind it. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  let message = error.message;
  if (message === '' && error instanceof AggregateError) {
    message = error.errors.map(describeError).join('; ');
  }
  message = opensslReason(message);
  const cause = error.cause instanceof Error ? ` (${describeError(error.cause)})` : '';
  const text = message === '' ? error.name : message;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}${cause}` : `${text}${cause}`;
}
