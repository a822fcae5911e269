/** The time the control plane acts on; injectable so tests can move it without waiting. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}
