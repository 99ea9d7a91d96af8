#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript in dist/.
import('../dist/src/app/cli.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('peregrine: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
  throw err;
});
