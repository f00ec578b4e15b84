import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';

// The SMSGate app's message encryption (modules/encryption/EncryptionService.kt), as the phone and
// the integrators' clients do it: `$aes-256-cbc/pbkdf2-sha1$i=<iterations>$<salt>$<data>`, AES-256-CBC
// with PKCS#7 padding, the key PBKDF2-HMAC-SHA1 (256 bits) of the passphrase and salt, the salt also
// the IV; base64 (android.util.Base64.DEFAULT, which also reads what Python's b64encode writes).

const ALGORITHM = 'aes-256-cbc/pbkdf2-sha1';

const keyOf = (passphrase: string, salt: Buffer, iterations: number) =>
  pbkdf2Sync(passphrase, salt, iterations, 32, 'sha1');

/** As the Python client's AESEncryptor.encrypt: a fresh 16-byte salt each time (75,000 iterations by default). */
export function encrypt(passphrase: string, cleartext: string, iterations = 75_000): string {
  const salt = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', keyOf(passphrase, salt, iterations), salt);
  const data = Buffer.concat([cipher.update(cleartext, 'utf8'), cipher.final()]);
  return `$${ALGORITHM}$i=${iterations}$${salt.toString('base64')}$${data.toString('base64')}`;
}

/** EncryptionService.kt decrypt: the chunks split on `$`, the algorithm and `i` checked, then AES. */
export function decrypt(passphrase: string, encrypted: string): string {
  const chunks = encrypted.split('$');
  if (chunks.length < 5) throw new Error('Invalid encrypted data format');
  if (chunks[1] !== ALGORITHM) throw new Error('Unsupported algorithm');
  const params = Object.fromEntries(chunks[2].split(',').map((param) => param.split('=', 2)));
  if (!('i' in params)) throw new Error('Missing iteration count');
  const salt = Buffer.from(chunks[3], 'base64');
  const decipher = createDecipheriv('aes-256-cbc', keyOf(passphrase, salt, Number(params.i)), salt);
  return Buffer.concat([decipher.update(Buffer.from(chunks[4], 'base64')), decipher.final()]).toString('utf8');
}
