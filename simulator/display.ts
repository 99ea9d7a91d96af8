/**
 * The live view while a run goes on: on a terminal, lines redrawn in place twice a second (requests
 * per second, errors, a bar per device state, the rollout and a bar per deploy group); otherwise one
 * plain line every few seconds, fit for CI logs.
 */
import { GROUP_GLYPHS, groupBars, stateBars } from './bars.js';
import { STATES } from './device.js';
import type { Fleet } from './fleet.js';
import type { RolloutGroupView, RolloutView } from './mgmt.js';
import type { Stats } from './stats.js';

export interface DisplaySource {
  readonly fleet: Fleet;
  readonly stats: Stats;
  readonly phase: () => string;
  readonly rollout: () => RolloutView | undefined;
  /** The rollout's deploy groups with their counts (read only when the view is on a terminal). */
  readonly groups: () => readonly RolloutGroupView[] | undefined;
}

export class LiveDisplay {
  private timer: NodeJS.Timeout | undefined;
  private drawn = 0;
  private started = false;
  private lastRequests = 0;
  private lastAt = Date.now();

  constructor(private readonly src: DisplaySource, private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly plainEveryMs = 5000) {}

  start(): void {
    const tty = this.out.isTTY === true;
    this.started = true;
    this.draw(tty);
    this.timer = setInterval(() => this.draw(tty), tty ? 500 : this.plainEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.out.isTTY === true && this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[J`);
    else if (this.out.isTTY !== true && this.started) this.draw(false);
    this.started = false;
    this.drawn = 0;
  }

  /** The current figures as lines: with bars on a terminal, else the figures the plain line joins. */
  lines(tty = false): string[] {
    const { fleet, stats } = this.src;
    const now = Date.now();
    const rate = ((stats.requests - this.lastRequests) * 1000) / Math.max(1, now - this.lastAt);
    this.lastRequests = stats.requests;
    this.lastAt = now;
    const t = ((now - stats.startedAt) / 1000).toFixed(0);
    const states = tty ? stateBars(fleet.counts, fleet.size) : [`  ${STATES.map((s, i) => `${s} ${fleet.counts[i]}`).join('  ')}`];
    const lines = [
      `[${t} s] ${this.src.phase()}  devices ${fleet.size} (registered ${fleet.registered})`,
      ...states,
      `  ${rate.toFixed(0)} req/s  errors ${stats.totalErrors()}  updates ok ${stats.counters.successes} failed ${stats.counters.failures}`,
    ];
    const r = this.src.rollout();
    if (r) {
      const per = r.totalTargetsPerStatus ? Object.entries(r.totalTargetsPerStatus).map(([k, v]) => `${k} ${v}`).join(' ') : '';
      const legend = tty ? `  (${GROUP_GLYPHS.map((g, i) => `${g} ${['finished', 'error', 'running'][i]}`).join(' ')})` : '';
      lines.push(`  rollout #${r.id} ${r.status} ${per}${legend}`);
      if (tty) lines.push(...groupBars(this.src.groups() ?? []).map((l) => `  ${l}`));
    }
    return lines;
  }

  private draw(tty: boolean): void {
    const lines = this.lines(tty);
    if (!tty) { this.out.write(`${lines.map((l) => l.trim()).join(' | ')}\n`); return; }
    const clear = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[J` : '';
    this.out.write(clear + lines.join('\n') + '\n');
    this.drawn = lines.length;
  }
}
