/** Types of run-projects.mjs, the `npm test` runner, for the tests that check it. */
export type VitestReport = {
  numTotalTestSuites: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  startTime: number;
  success: boolean;
  testResults: unknown[];
  [key: string]: unknown;
};

export declare const PROJECTS: string[];
export declare function projectArgs(project: string, args: string[], reportFile: string): string[];
export declare function requestedReport(args: string[]): string | undefined;
export declare function mergeReports(reports: (VitestReport | undefined)[]): VitestReport | undefined;
export declare function exitStatus(codes: number[], merged: VitestReport | undefined): number;
