/** How the pages write numbers and times. */

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

export function percent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '–';
  const value = ratio * 100;
  return `${value === 100 || value === 0 ? value.toFixed(0) : value.toFixed(2)} %`;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "3 minutes ago", with the exact time for a title. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86_400), 'day');
}

export function dateTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

/** An enum word as people read it: FAILING → failing, NO_DATA → no data. */
export function spoken(word: string): string {
  return word.toLowerCase().replaceAll('_', ' ');
}
