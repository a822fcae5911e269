import type { Clock } from '../queue/clock.js';
import type { RunEffects, RunEvents } from '../queue/events.js';
import type { Db } from '../store/db.js';
import type { OnSessionsFinished } from './finish.js';

/** What the session operations need from the server: the store, the clock, and where effects are announced. */
export interface RunsContext {
  db: Db;
  clock: Clock;
  events: RunEvents;
  publicUrl: string;
  /** How often a completion wait reads the store again. */
  completionPollMs: number;
  /** How recently an agent must have been heard from to count as connected. */
  agentFreshMs: number;
  publish(effects: RunEffects): void;
  /** What moves with a session that ends: its check's alert state. */
  onSessionFinished: OnSessionsFinished;
}
