/**
 * Exit codes: 1 something failed (a run that did not complete), 2 the command or its configuration was wrong (no
 * point retrying as it is), 3 the API answered an error or could not be reached. A module of their own, importing
 * nothing, so main.ts can exit with one before it loads the command.
 */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_API_ERROR = 3;
