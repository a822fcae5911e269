/** The annotation type the runner reads to mark a run degraded. */
export declare const DEGRADED_ANNOTATION: 'vantage:degraded';

/** Marks the run degraded (it still passes unless something fails); the reason appears in the result. */
export declare function markCheckAsDegraded(reason?: string): void;
