import { isatty } from 'node:tty';
import pino, { type Logger } from 'pino';
import type { AppConfig } from './config';
import { prettyDestination } from './pretty-log';

/**
 * JSON logs; the server logs to stdout, the CLI to stderr so that stdout holds only results.
 * Writes are asynchronous: lines logged while a write is in flight go out together in the next one,
 * so a busy server does not pay a system call per request line; pino flushes what is left on exit.
 * On a terminal (LOG_FORMAT=auto) or with LOG_FORMAT=pretty the lines are for people instead.
 */
export function createLogger(config: Pick<AppConfig, 'logLevel'> & { logFormat?: AppConfig['logFormat'] }, fd: 1 | 2 = 1): Logger {
  const format = config.logFormat ?? 'auto';
  const pretty = format === 'pretty' || (format === 'auto' && isatty(fd));
  return pino(
    {
      level: config.logLevel,
      base: { service: 'sync-gateway' },
      redact: { paths: ['authorization', '*.authorization'], censor: '[redacted]' },
    },
    pretty ? prettyDestination(fd, isatty(fd)) : pino.destination({ fd, sync: false }),
  );
}
