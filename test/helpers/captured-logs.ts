import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../../config/logger';

/** A JSON logger whose every line is kept as it would reach the log store. */
export function capturingLogger(level: string, service: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level, json: true, service });
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    }),
  );
  return { logger, lines };
}
