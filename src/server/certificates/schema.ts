import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { z } from 'zod';

/** A domain without scheme or path; `*` labels allowed (`*.example.com`), and an optional port. */
const HOST =
  /^(\*|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.(\*|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?))*(:\d{1,5})?$/;

function parseCertificate(pem: string): X509Certificate | null {
  try {
    return new X509Certificate(pem);
  } catch {
    return null;
  }
}

function parseKey(pem: string, passphrase: string | undefined): KeyObject | null {
  try {
    return createPrivateKey({ key: pem, format: 'pem', passphrase });
  } catch {
    return null;
  }
}

/** A client certificate as uploaded: PEM texts, checked to parse and to belong together. */
export const clientCertificateBodySchema = z
  .strictObject({
    host: z.string().min(1).max(255).regex(HOST, {
      message: 'must be a domain without scheme or path, like api.example.com or *.example.com',
    }),
    cert: z.string().min(1).describe('PEM certificate, line breaks kept'),
    key: z.string().min(1).describe('PEM private key; never returned'),
    ca: z.string().min(1).nullable().optional().describe('PEM CA certificate'),
    passphrase: z.string().nullable().optional().describe('Passphrase of an encrypted key; never returned'),
  })
  .superRefine(
    (body, ctx) => {
      const cert = typeof body.cert === 'string' ? parseCertificate(body.cert) : null;
      if (typeof body.cert === 'string' && body.cert !== '' && !cert) {
        ctx.addIssue({ code: 'custom', path: ['cert'], message: 'must be a PEM certificate' });
      }
      if (typeof body.key === 'string' && body.key !== '') {
        const key = parseKey(body.key, body.passphrase ?? undefined);
        if (!key) {
          ctx.addIssue({
            code: 'custom',
            path: ['key'],
            message: 'must be a PEM private key (encrypted keys need the right passphrase)',
          });
        } else if (cert && !cert.checkPrivateKey(key)) {
          ctx.addIssue({ code: 'custom', path: ['key'], message: 'is not the private key of cert' });
        }
      }
      if (typeof body.ca === 'string' && body.ca !== '' && !parseCertificate(body.ca)) {
        ctx.addIssue({ code: 'custom', path: ['ca'], message: 'must be a PEM certificate' });
      }
    },
    { when: () => true },
  );

export const clientCertificateResponseSchema = z.object({
  id: z.string(),
  host: z.string(),
  cert: z.string(),
  ca: z.string().nullable(),
  created_at: z.string(),
});
