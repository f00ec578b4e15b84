import { Algorithm, hash, verify } from '@node-rs/argon2';

// OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane.
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

export const hashPassword = (password: string) => hash(password, OPTIONS);

// Verified against when the account does not exist, so both answers take the same time.
let decoy: Promise<string> | undefined;

/** argon2 verification (constant-time inside); with no hash, burns the same time and fails. */
export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    decoy ??= hash('not-a-real-password', OPTIONS);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
