#!/usr/bin/env node
// The `statuswatch` command. Production runs the JavaScript that `npm ci` built into dist/ (the
// `prepare` script). A checkout whose sources changed since that build runs them through tsx
// instead, so tests and development always run the code as it stands; tsx is a devDependency.
import { fileURLToPath } from 'node:url';
import { DIST_CLI, isBuildFresh } from './built-output.mjs';

if (isBuildFresh()) {
  await import(DIST_CLI);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('statuswatch: dist/ is missing or older than src/ or package-lock.json, and tsx (a devDependency) is not installed: run `npm run build`.');
    process.exit(2);
  }
  // The project's tsconfig (JSX for the pages), wherever the command is run from: tsx would
  // otherwise look for one in the current folder.
  register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
  await import('./cli-process.ts');
}
