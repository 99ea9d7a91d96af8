/** Milliseconds since the epoch as local date and time (`2026-11-27 14:03:09`); a dash when unset. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === undefined || ms === null || !Number.isFinite(ms) || ms <= 0) return '—';
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** How long ago (`5 s ago`, `3 min ago`, `2 h ago`, `4 d ago`); a dash when unset. */
export function formatAgo(ms: number | null | undefined, now = Date.now()): string {
  if (ms === undefined || ms === null || !Number.isFinite(ms) || ms <= 0) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** Bytes as B, KB, MB, GB (1024-based, one decimal). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit] ?? ''}`;
}
