/**
 * Loads the uWebSockets.js native binding. It ships prebuilt for a fixed set of Node versions and
 * platforms (glibc Linux, macOS, Windows); anywhere else the server must refuse to start with a
 * message that says why, not a stack trace from deep inside a require.
 */
import { createRequire } from 'node:module';

export type Uws = typeof import('uWebSockets.js');

let loaded: Uws | undefined;

export function loadUws(): Uws {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)('uWebSockets.js') as Uws;
    return loaded;
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n').filter((l) => l.trim() !== '').slice(-1)[0] : String(err);
    throw new Error(
      `peregrine cannot start: the uWebSockets.js native binding did not load for Node ${process.version} on ` +
        `${process.platform}-${process.arch} (${detail}). Use a supported Node.js version (20, 22 or 24) on glibc Linux, macOS or Windows.`,
      { cause: err },
    );
  }
}
