/** Who is calling: `user` keys use the public API; `location` keys are agents of one private location. */
export type AuthKind = 'user' | 'location';

export interface AuthContext {
  kind: AuthKind;
  accountId: string;
  keyId: string;
  /** For location keys: the private location the agent serves. */
  privateLocationId: string | null;
  locationSlug: string | null;
}
