/**
 * The server's log destination: readable lines on a terminal (pino-pretty), JSON lines otherwise
 * (files, journald, a log shipper). Either way every line passes the process's redactor first
 * (app.ts puts it in pino's streamWrite hook, before the line reaches the destination): the pretty
 * printer only reformats lines that are already clean.
 */
import PinoPretty from 'pino-pretty';

export interface LogOptions {
  level: string;
  /** Whether the logs go to a terminal (stdout is a TTY). */
  pretty: boolean;
  /** Where pretty lines go (tests); stdout by default. */
  destination?: NodeJS.WritableStream;
}

/** Fastify logger options (buildServer adds the redaction hook). */
export function loggerOptions(o: LogOptions): { level: string; stream?: NodeJS.WritableStream } {
  if (!o.pretty) return { level: o.level };
  return {
    level: o.level,
    stream: PinoPretty({
      colorize: !o.destination,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      destination: o.destination ?? 1,
      sync: true,
    }),
  };
}
