// Encrypted sends: the body and every recipient are ciphertext the owner's phone decrypts with its
// passphrase (the SMSGate app's format: EncryptionService.kt). The server cannot read them, so what
// needs the text (E.164 normalisation, opt-outs, segment counts, search) is not done for them.

/**
 * `$aes-256-cbc/pbkdf2-sha1$i=<iterations>$<salt, base64>$<data, base64>`: AES-256-CBC, the key by
 * PBKDF2-HMAC-SHA1 of the passphrase and salt, the salt also the IV.
 */
const CIPHERTEXT =
  /^\$aes-256-cbc\/pbkdf2-sha1\$(?:[a-z]+=[^$,]*,)*i=[1-9]\d{0,8}(?:,[a-z]+=[^$,]*)*\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;

export const CIPHERTEXT_FORMAT = '$aes-256-cbc/pbkdf2-sha1$i=<iterations>$<salt>$<data>';

/** Ciphertext of a 1,600-character body (at most 4,800 bytes of UTF-8) fits, with room to spare. */
export const ENCRYPTED_BODY_MAX = 8192;
/** Ciphertext of a phone number (up to 64 characters) fits. */
export const ENCRYPTED_NUMBER_MAX = 256;

export const isCiphertext = (value: string): boolean => CIPHERTEXT.test(value);

/** An encrypted send's recipients: exact repeats dropped (the same number encrypts differently each time). */
export const distinctCiphertexts = (to: string[]): string[] => [...new Set(to)];

/** What an encrypted send shows for its recipients, in place of numbers nobody here can read. */
export const encryptedPreview = (count: number) => `${count} encrypted recipient${count === 1 ? '' : 's'}`;
