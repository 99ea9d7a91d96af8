/** Where an operator command writes, and from what it reads its settings: process streams, or a test's. */
export interface OpsIo {
  readonly out: { write(s: string): unknown; readonly isTTY?: boolean };
  readonly err: { write(s: string): unknown };
  readonly env: NodeJS.ProcessEnv;
}
