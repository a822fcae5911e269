import type { CheckSession } from '../../checks/index.js';

/** Receives each check session as it finishes, then the whole batch. */
export interface Reporter {
  onSession(session: CheckSession): void;
  onEnd(sessions: readonly CheckSession[]): Promise<void>;
}

export interface ReporterOptions {
  /** Where text goes (stdout by default). */
  write: (text: string) => void;
  /** File for reporters that write one (junit). */
  output?: string;
}
