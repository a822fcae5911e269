import { isIP } from 'node:net';
import { z } from 'zod';
import type { CheckType } from '../enums.js';
import { refineShared, sharedCheckFields } from '../shared.js';

/** A check kind's schema: the shared fields, `checkType` fixed to the kind, and the kind's own fields. */
export function defineCheck<K extends CheckType, F extends z.ZodRawShape>(
  kind: K,
  fields: F,
  refine?: (check: z.infer<z.ZodObject<F>>, ctx: z.RefinementCtx) => void,
) {
  return z.strictObject({ ...sharedCheckFields, checkType: z.literal(kind), ...fields }).superRefine(
    (check, ctx) => {
      refineShared(kind)(check as unknown as Parameters<ReturnType<typeof refineShared>>[0], ctx);
      refine?.(check as unknown as z.infer<z.ZodObject<F>>, ctx);
    },
    // Cross-field rules run even when other fields are broken, so every problem is reported at once;
    // each rule checks the types of the fields it reads.
    { when: () => true },
  );
}

/** Rejects a hostname that carries a scheme or a port: those have fields of their own. */
export const hostnameSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((h) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(h), {
    message: 'must not contain a scheme (like https://)',
  })
  .refine((h) => isIP(h) !== 0 || (!/^[^[\]]*:\d+$/.test(h) && !/^\[.*\]:\d+$/.test(h)), {
    message: 'must not contain a port: use the port field',
  });
