import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Webhook signing secrets must be readable to sign, so they cannot be hashed. With SECRETS_KEY set
// they are stored sealed (AES-256-GCM) and opened only to sign; without it they are stored as given.
const PREFIX = 'sealed:v1:';

export interface SecretBox {
  seal(plain: string): string;
  open(stored: string): string;
}

export function createSecretBox(key?: Buffer): SecretBox {
  return {
    seal(plain) {
      if (!key) return plain;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key) throw new Error('a sealed secret needs SECRETS_KEY to be opened');
      const [iv, tag, sealed] = stored
        .slice(PREFIX.length)
        .split('.')
        .map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
    },
  };
}
