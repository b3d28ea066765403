import { AppError } from '../errors/app-error';
import { parseJsonPaced, type JsonShape } from '../pacing/json-body';

/** Reads a request body as text, refusing more than `maxBytes` without buffering past the limit. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError('VALIDATION_FAILED', 'The request body is not valid UTF-8', [{ field: '(body)', message: 'Invalid UTF-8' }]);
  }
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBytes} bytes`);
}

/** Parses a JSON request body that must be an object; an empty body is `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notJson(error);
  }
  return asObject(value);
}

/**
 * parseJsonObject for a body whose shape the body-limits plugin found: a long list is parsed piece
 * by piece between turns of the event loop (ADR 0046); the value and any error are the same.
 */
export async function parseJsonObjectPaced(text: string, shape: JsonShape): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = await parseJsonPaced(text, shape);
  } catch (error) {
    throw notJson(error);
  }
  return asObject(value);
}

const notJson = (error: unknown) =>
  new AppError('VALIDATION_FAILED', 'The request body is not valid JSON', [{ field: '(body)', message: (error as Error).message }]);

function asObject(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object', [{ field: '(body)', message: 'Expected an object' }]);
  }
  return value as Record<string, unknown>;
}
