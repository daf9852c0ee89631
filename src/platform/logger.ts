import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Where log lines go: standard output by default; a stream that says whether it is a terminal. */
export type LogDestination = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * The app's logger: easy-to-read coloured lines for a person watching a terminal, one JSON object per
 * line otherwise (a file, a pipe, a container's log collector), which is what log tooling parses.
 * LOG_FORMAT forces either when the guess is wrong (a terminal that wants JSON, a CI log that wants text).
 */
export function createLogger({
  level,
  format = 'auto',
  destination = process.stdout,
}: {
  level: Level | 'silent';
  format?: 'auto' | 'pretty' | 'json';
  destination?: LogDestination;
}): Logger {
  const isPretty = format === 'pretty' || (format === 'auto' && destination.isTTY === true);
  if (!isPretty) return pino({ level }, destination as DestinationStream);
  // In-process and synchronous, so no line is lost on exit and no worker thread is started.
  return pino({ level }, pretty({ destination, sync: true, colorize: destination.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }));
}
