import { parseConfig } from '../../composition/config.js';

/** The HTTP adapter's configured options at their defaults (composition/config.ts), for tests that build it by hand. */
const defaults = parseConfig({});
export const HTTP_APP_DEFAULTS = defaults.http;
export const HTTP_SERVER_DEFAULTS = { ...defaults.listener, host: '127.0.0.1', port: 0 };
