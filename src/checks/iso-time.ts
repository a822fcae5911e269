/** The ISO text of the second last asked for, up to its milliseconds: `2026-12-07T15:40:00.`. */
let secondShown = Number.NaN;
let secondPrefix = '';

/**
 * A time as `Date.prototype.toISOString` writes it (`2026-12-07T15:40:00.123Z`), made from the text of its second
 * and its milliseconds. V8 formats each date through `snprintf`, about 7,000 instructions a call: a run writes four
 * or more of them (its result's and its session's start and stop, its log lines), all within a few seconds.
 * Throws RangeError for an invalid time, as toISOString does.
 */
export function isoTime(time: number | Date): string {
  // A Date keeps whole milliseconds, cutting a fraction toward zero: so is a number.
  const ms = typeof time === 'number' ? Math.trunc(time) : time.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== secondShown) {
    // "…:SS.000Z" less its "000Z", whatever the year's width (a year past 9999 is written +YYYYYY).
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    secondShown = second;
  }
  const millis = ms - second * 1000;
  return `${secondPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
