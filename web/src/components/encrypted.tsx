import { Badge } from '@mantine/core';

/**
 * In place of an encrypted send's body or number: ciphertext only the owner's phone can read, so it
 * is never shown as if it were text (the API still gives it as sent).
 */
export function EncryptedMark({ what }: { what: 'text' | 'number' }) {
  return (
    <Badge
      color="gray"
      variant="light"
      autoContrast
      data-testid="encrypted-mark"
      title={`End-to-end encrypted: only the phone can read the ${what}`}
      styles={{ root: { flexShrink: 0, minWidth: 'max-content' }, label: { overflow: 'visible' } }}
    >
      <span style={{ color: 'var(--pg-badge-text)' }}>Encrypted</span>
    </Badge>
  );
}
