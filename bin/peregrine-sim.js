#!/usr/bin/env node
// Thin launcher: the simulator is compiled TypeScript in dist/.
import('../dist/simulator/cli.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('peregrine-sim: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
  throw err;
});
