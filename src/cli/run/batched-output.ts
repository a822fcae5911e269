/** Text larger than this is written at once rather than gathered (a large body is not copied into the batch). */
const LARGE = 64 * 1024;

/**
 * Gathers what is written during one turn of the event loop and passes it on in one write: stdout is written
 * synchronously to a file or pipe, a system call each, and a busy run finishes many sessions in a turn.
 */
export function batchedOutput(write: (text: string) => void): {
  write: (text: string) => void;
  /** Writes what was gathered now (at the end of the run). */
  flush: () => void;
} {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  return {
    write(text) {
      if (text.length >= LARGE) {
        flush();
        write(text);
        return;
      }
      pending += text;
      if (pending.length >= LARGE) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
