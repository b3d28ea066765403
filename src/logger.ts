import pino, { type Logger } from 'pino';
import type { AppConfig } from './config';

/**
 * JSON logs; the server logs to stdout, the CLI to stderr so that stdout holds only results.
 * Writes are asynchronous: lines logged while a write is in flight go out together in the next one,
 * so a busy server does not pay a system call per request line; pino flushes what is left on exit.
 */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, fd: 1 | 2 = 1): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'sync-gateway' },
      redact: { paths: ['authorization', '*.authorization'], censor: '[redacted]' },
    },
    pino.destination({ fd, sync: false }),
  );
}
