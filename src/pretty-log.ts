import { writeSync } from 'node:fs';
import { renderStartupBanner, STARTUP_MESSAGE } from './startup-banner';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg']);

/**
 * A pino destination for a terminal: `12:00:01 INFO  message key=value…` per line, errors with
 * their stack, and the start-up line as its block. pino-pretty would do this as a transport but
 * is not a dependency; this is the small part of it a person at a terminal needs.
 */
export function prettyDestination(fd: 1 | 2, colour = true): { write(line: string): void } {
  return { write: (line) => writeSync(fd, formatLogLine(line, colour)) };
}

export function formatLogLine(line: string, colour = false): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = Number(record.level);
  const time = new Date(Number(record.time) || Date.now()).toTimeString().slice(0, 8);
  const label = (LEVELS[level] ?? String(record.level)).padEnd(5);
  const paint = (code: string | undefined, text: string) => (colour && code ? `\u001b[${code}m${text}\u001b[0m` : text);
  const head = `${paint('90', time)} ${paint(COLOURS[level], label)}`;
  if (record.msg === STARTUP_MESSAGE) {
    return `${renderStartupBanner(record)
      .map((l, i) => (i === 0 ? `${head} ${l}` : `${' '.repeat(15)}${l}`))
      .join('\n')}\n`;
  }
  const fields = Object.entries(record)
    .filter(([key]) => !HIDDEN.has(key) && key !== 'err')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const err = record.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n${err.stack ?? err.message ?? JSON.stringify(err)}` : '';
  return `${head} ${String(record.msg ?? '')}${fields.length ? ` ${paint('90', fields.join(' '))}` : ''}${stack}\n`;
}
