import { Switch, TextInput } from '@mantine/core';
import { timeZone } from '../../lib/format';

/** "Schedule for later", and when it is on, the time to send at in the browser's zone. */
export function Schedule({
  scheduled,
  at,
  error,
  onScheduled,
  onAt,
}: {
  scheduled: boolean;
  at: string;
  /** The API's refusal of the time. */
  error: string | undefined;
  onScheduled(scheduled: boolean): void;
  onAt(at: string): void;
}) {
  return (
    <>
      <Switch label="Schedule for later" checked={scheduled} onChange={(e) => onScheduled(e.currentTarget.checked)} />
      {scheduled && (
        <TextInput
          type="datetime-local"
          label={`Send at (${timeZone})`}
          value={at}
          error={error}
          onChange={(e) => onAt(e.currentTarget.value)}
          required
        />
      )}
    </>
  );
}
