/**
 * PostgreSQL's buffer cache inside PGlite (its shared_buffers), in MB, unless VANTAGE_PGLITE_CACHE_MB says otherwise.
 * PostgreSQL's default, 128 MB, is WebAssembly memory that stays resident once touched; PGlite reads a page it does
 * not hold from its file (the kernel's page cache), so a smaller cache costs a read, not a disk access
 * (docs/control-plane.md, Capacity).
 */
export const PGLITE_CACHE_MB = 32;
