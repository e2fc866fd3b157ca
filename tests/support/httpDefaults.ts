import { parseConfig } from '../../composition/config.js';
import { httpAppSettings, httpServerSettings } from '../../composition/httpSettings.js';

/** The HTTP adapter's configured options at their defaults (composition/config.ts), for tests that build it by hand. */
export const HTTP_APP_DEFAULTS = httpAppSettings(parseConfig({}));
export const HTTP_SERVER_DEFAULTS = { ...httpServerSettings(parseConfig({})), host: '127.0.0.1', port: 0 };
