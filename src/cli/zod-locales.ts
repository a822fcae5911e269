import module from 'node:module';

/**
 * zod's every entry point loads its 60 locales, about 7 MB and 50 ms at start, only to offer `z.locales`, which
 * Vantage never uses (its messages are zod's English, which zod imports on its own). In the `vantage` command they
 * resolve to a module that holds English alone. Node.js before 22.15 has no synchronous hooks: it loads them all.
 */
const ZOD_LOCALES = /\/node_modules\/zod\/v4\/locales\/index\.js$/;
const ENGLISH_ONLY = new URL('./zod-english.js', import.meta.url).href;

export function loadZodInEnglishOnly(): void {
  // Run from source (tsx), the English module is a .ts file this hook cannot name; zod then loads whole.
  if (!import.meta.url.endsWith('.js')) return;
  module.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      return ZOD_LOCALES.test(resolved.url) ? { ...resolved, url: ENGLISH_ONLY } : resolved;
    },
  });
}
