import { createConnection } from 'node:net';
import { ControlOperationError, type ControlResponse } from './protocol';

/** Nothing listens on the socket: no server runs, or it has not opened the socket yet. */
export class NoControlSocket extends Error {
  constructor(readonly socketPath: string) {
    super(`no server listens on ${socketPath}`);
    this.name = 'NoControlSocket';
  }
}

/** Unavailable sockets: missing, a leftover of a dead process, or not a socket at all. */
const UNAVAILABLE = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'ENOTDIR']);

/**
 * Asks the running server to run one operation and answers its result. No time limit: an
 * operation such as `webhook.test` takes as long as the receiver does, and a server that stops
 * closes the connection, which ends the wait.
 */
export function callControlSocket(socketPath: string, op: string, args: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let connected = false;
    let received = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ op, args })}\n`);
    });
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && UNAVAILABLE.has(error.code ?? '')) reject(new NoControlSocket(socketPath));
      else if (error.code === 'EACCES')
        reject(new Error(`${socketPath} belongs to another OS user: run the CLI as the user that runs the server`));
      else reject(error);
    });
    socket.on('close', () => {
      if (!connected) return; // the error handler answered
      const line = received.split('\n')[0];
      if (!line) return reject(new Error('the running server closed the control connection without answering (is it stopping?)'));
      try {
        const response = JSON.parse(line) as ControlResponse;
        if (response.ok) resolve(response.result);
        else reject(new ControlOperationError(response.error));
      } catch {
        reject(new Error('the running server answered something that is not JSON on its control socket'));
      }
    });
  });
}
