/** The most of a reply kept; a peer that sends more is cut here. */
export const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * Silence after the last byte (or after sending, when nothing came yet) that ends a read the assertions could
 * not end earlier: many servers keep the connection open after they answer.
 */
export const READ_IDLE_TIMEOUT_MS = 1000;
