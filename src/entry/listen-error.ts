/** Why a server could not listen, in the words of the setting to change (serve, simulate). */
import { settingError, type Config } from '../config.ts';

/**
 * A port in use or a HOST that is no address of this machine, as a one-line ConfigError.
 * `portSetting` names where the port came from (`--sim-port` for the simulator).
 */
export function listenError(error: unknown, config: Pick<Config, 'HOST' | 'PORT'>, portSetting = 'PORT (or --port)'): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const portName = portSetting.split(' ')[0]!;
  switch (code) {
    case 'EADDRINUSE':
      return settingError(
        portName,
        String(config.PORT),
        `another process is already listening on ${config.HOST}:${config.PORT}`,
        `stop that process, or set ${portSetting} to a free port`,
      );
    case 'EACCES':
      return settingError(portName, String(config.PORT), 'this user may not listen on ports below 1024', `set ${portSetting} to 1024 or more`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EADDRNOTAVAIL':
    case 'EINVAL':
      return settingError(
        'HOST',
        config.HOST,
        `not an address of this machine (${code})`,
        'set HOST (or --host) to 0.0.0.0 for every interface, 127.0.0.1 for this machine only, or one of its own addresses',
      );
    default:
      return error;
  }
}
