/**
 * Which device request gets the next free connection. The fleet shares a few keep-alive connections
 * among all its devices; a real device has its own, so once it found an update its next requests
 * (deploymentBase, feedback, downloads) follow at once. Here they would queue behind every other
 * device's poll that is due (with 10,000 devices at a 1 s poll, seconds per request). So a request
 * that continues a device's exchange goes before the polls that start new ones; each kind stays in
 * the order it came. At most `slots` requests hold a connection at a time.
 */
export class Admission {
  private free: number;
  private readonly continuing: (() => void)[] = [];
  private readonly starting: (() => void)[] = [];

  constructor(slots: number) {
    this.free = slots;
  }

  /** Resolves when the request may use a connection; `continues`: it follows an earlier request of the same device. */
  enter(continues: boolean): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (continues ? this.continuing : this.starting).push(resolve));
  }

  /** The request is done with its connection: the next waiting one gets it. */
  leave(): void {
    const next = this.continuing.shift() ?? this.starting.shift();
    if (next === undefined) this.free++;
    else next();
  }
}
