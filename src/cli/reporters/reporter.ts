import type { CheckSession } from '../../checks/index.js';

/** Receives each check session as it finishes, then the end of the batch; it keeps what it needs of them. */
export interface Reporter {
  onSession(session: CheckSession): void;
  onEnd(): Promise<void>;
}

export interface ReporterOptions {
  /** Where text goes (stdout by default). */
  write: (text: string) => void;
  /** File for reporters that write one (junit). */
  output?: string;
}
