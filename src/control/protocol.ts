import path from 'node:path';
import type { ErrorDetail } from '../errors/app-error';

/**
 * The local control channel: one request per connection, one JSON line each way, on a Unix
 * socket in DATA_DIR that only the server's OS user can open (docs/adr/0023).
 */
export const CONTROL_SOCKET_NAME = 'sync-gateway.sock';

/** Requests are a few hundred bytes; anything this large is not one of ours. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** sockaddr_un's sun_path holds 108 bytes on Linux (104 on macOS), the terminating NUL included. */
export const MAX_SOCKET_PATH_BYTES = 103;

export type ControlRequest = { op: string; args: unknown };

export type ControlFailure = { code?: string; message: string; details?: ErrorDetail[] };

export type ControlResponse = { ok: true; result: unknown } | { ok: false; error: ControlFailure };

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, CONTROL_SOCKET_NAME);
}

/** An operation's failure as the running server reported it, shown by the CLI like a local one. */
export class ControlOperationError extends Error {
  readonly code: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  constructor(failure: ControlFailure) {
    super(failure.message);
    this.name = 'ControlOperationError';
    this.code = failure.code;
    this.details = failure.details;
  }
}
