/** The error every server call of the console rejects with (api.ts, session.ts, uploads). */
/** A failed call: `message` is the server's `message` field (or the status text), `errorCode` hawkBit's code. */
export class ApiError extends Error {
  readonly status: number;
  readonly errorCode?: string;
  readonly body?: unknown;
  constructor(status: number, message: string, errorCode?: string, body?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errorCode = errorCode;
    this.body = body;
  }
}

/** Turns a non-2xx reply into an ApiError carrying the server's message. */
export function errorFrom(status: number, statusText: string, body: unknown): ApiError {
  if (body !== null && typeof body === 'object') {
    const { message, errorCode } = body as { message?: unknown; errorCode?: unknown };
    return new ApiError(
      status,
      typeof message === 'string' && message !== '' ? message : `${status} ${statusText}`,
      typeof errorCode === 'string' ? errorCode : undefined,
      body,
    );
  }
  const text = typeof body === 'string' && body.trim() !== '' && body.length < 300 ? body.trim() : `${status} ${statusText}`;
  return new ApiError(status, text, undefined, body);
}

/** The reply body: parsed JSON, else the text, undefined when empty. */
export async function readReply(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
