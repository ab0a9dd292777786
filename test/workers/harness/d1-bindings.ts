/** The D1 databases the workers project gives the app harness: one per app a test file has open at once (two at most today). */
export const HARNESS_D1_BINDINGS = ['APP_DB_0', 'APP_DB_1', 'APP_DB_2', 'APP_DB_3'] as const;
