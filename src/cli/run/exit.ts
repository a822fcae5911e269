/** Exit status of `vantage run`. */
export const EXIT = { passed: 0, failed: 1, unusableInput: 2 } as const;
