#!/usr/bin/env node
// The `statuswatch` command. Registers tsx so Node 20 runs the TypeScript sources as they are:
// no build step between `npm ci` and `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
