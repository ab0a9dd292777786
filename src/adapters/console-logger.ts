/** The Logger port as structured lines on stderr: JSON for machines, or a short pretty form for people. */
import type { LogFields, Logger } from '../core/ports.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

export function createConsoleLogger(options: { level: LogLevel; format: 'json' | 'pretty'; write?: (line: string) => void; base?: LogFields }): Logger {
  // console.error is stderr on Node and the log on Workers.
  const write = options.write ?? ((line: string) => console.error(line));
  const threshold = LEVELS[options.level];
  const log =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}) => {
      if (LEVELS[level] < threshold) return;
      const time = new Date().toISOString();
      const all = { ...options.base, ...fields };
      if (options.format === 'json') {
        write(JSON.stringify({ time, level, msg: message, ...all }));
      } else {
        const extra = Object.entries(all)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' ');
        write(`${time.slice(11, 19)} ${level.toUpperCase().padEnd(5)} ${message}${extra ? ' ' + extra : ''}`);
      }
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
