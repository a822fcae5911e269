/** The log levels of LOG_LEVEL, apart from the logger so that reading settings does not load it. */
export const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
