/** Types of built-output.mjs (plain JavaScript, so it runs before anything is compiled). */
export declare const SRC_DIR: string;
export declare const DIST_DIR: string;
export declare const DIST_CLI: string;
export declare const BUILD_STAMP: string;
export declare function isBuildFresh(): boolean;
export declare function bundledInputsDigest(): string;
