import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error';
import { parseInput } from '../errors/zod-details';
import type { ControlContext, ControlOperation } from './operation';
import { controlOperations } from './operations';
import { controlSocketPath, MAX_REQUEST_BYTES, MAX_SOCKET_PATH_BYTES, type ControlFailure, type ControlResponse } from './protocol';

export type ControlSocket = { path: string; close(): Promise<void> };

/**
 * Opens the control socket of a running embedded server: `DATA_DIR/sync-gateway.sock`, mode
 * 0600, so that the CLI of the same OS user can ask this process (which holds the data-directory
 * lock) to run an operation. Answers undefined, with a warning, when the path is too long for a
 * Unix socket; the CLI then says to stop the server, as before.
 */
export async function openControlSocket(options: {
  dataDir: string;
  context: ControlContext;
  logger: Logger;
  operations?: ReadonlyMap<string, ControlOperation>;
}): Promise<ControlSocket | undefined> {
  const { context, logger, operations = controlOperations } = options;
  const socketPath = controlSocketPath(options.dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    logger.warn({ socketPath }, 'DATA_DIR is too long a path for the control socket: CLI commands need the server stopped');
    return undefined;
  }
  // This process holds the data-directory lock, so a socket file here is a dead process's leftover.
  await unlink(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });

  const idle = new Set<Socket>();
  const running = new Set<Promise<void>>();
  const server = createServer((socket) => {
    idle.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => idle.delete(socket));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (!idle.has(socket)) return;
      received += chunk;
      const end = received.indexOf('\n');
      if (end < 0 && received.length <= MAX_REQUEST_BYTES) return;
      idle.delete(socket);
      socket.pause();
      const work = answer(end < 0 ? undefined : received.slice(0, end))
        .then((response) => void socket.end(`${JSON.stringify(response)}\n`))
        .catch(() => void socket.destroy());
      running.add(work);
      void work.finally(() => running.delete(work));
    });
  });

  async function answer(line: string | undefined): Promise<ControlResponse> {
    let request: { op?: unknown; args?: unknown };
    try {
      if (line === undefined) throw new Error('too large');
      request = JSON.parse(line) as typeof request;
      if (typeof request !== 'object' || request === null) throw new Error('not an object');
    } catch {
      return failure({ code: 'BAD_REQUEST', message: 'The control channel takes one JSON line per connection' });
    }
    const operation = typeof request.op === 'string' ? operations.get(request.op) : undefined;
    if (!operation) return failure({ code: 'NOT_FOUND', message: `No control operation ${JSON.stringify(request.op)} in this server` });
    let args: unknown;
    try {
      // The same checks as the CLI's: the schema, and no string the database cannot store.
      args = parseInput(operation.args, request.args ?? {});
    } catch (error) {
      return failure(asFailure(error));
    }
    try {
      const result = await operation.run(context, args);
      logger.info({ operation: operation.name }, 'ran a control operation for the CLI');
      return { ok: true, result: result ?? null };
    } catch (error) {
      if (error instanceof AppError) return failure(asFailure(error));
      logger.error({ err: error, operation: operation.name }, 'a control operation failed');
      return failure({ message: (error as Error).message });
    }
  }

  // The socket is created with no permission for group or others (umask), then set to 0600 again
  // in case the file system ignores the umask: no moment in which another user could connect.
  const previousUmask = process.umask(0o177);
  try {
    server.listen(socketPath);
  } finally {
    process.umask(previousUmask);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  await chmod(socketPath, 0o600);
  logger.debug({ socketPath }, 'control socket open');

  return {
    path: socketPath,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of idle) socket.destroy();
      // Operations under way finish before the store they use is closed.
      await Promise.allSettled([...running]);
      await closed;
    },
  };
}

const failure = (error: ControlFailure): ControlResponse => ({ ok: false, error });

function asFailure(error: unknown): ControlFailure {
  if (!(error instanceof AppError)) return { message: (error as Error).message };
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}
