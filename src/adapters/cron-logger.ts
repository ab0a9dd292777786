/**
 * node-cron's own messages, through the service's logger: structured like every other line, and
 * at a level that says what they mean. Without it node-cron writes coloured text to stdout, which
 * breaks a JSON log, and warns at every tick a slow run overlaps, which `noOverlap` makes routine.
 */
import type { Logger as CronLogger } from 'node-cron';
import type { Logger } from '../core/ports.ts';

export function cronLogger(logger: Logger, task: string): CronLogger {
  const text = (message: string | Error) => (message instanceof Error ? message.message : message);
  return {
    // A tick skipped because the last run still goes on: expected with noOverlap, the run covers it.
    info: (message) => logger.debug(`scheduler: ${message}`, { task }),
    warn: (message) => (message.includes('overlap') ? logger.debug(`scheduler: ${message}`, { task }) : logger.warn(`scheduler: ${message}`, { task })),
    error: (message, error) => logger.error(`scheduler: ${text(message)}`, { task, ...(error ? { error: error.message } : {}) }),
    debug: (message) => logger.debug(`scheduler: ${text(message)}`, { task }),
  };
}
