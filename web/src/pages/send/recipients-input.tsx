import { Button, FileButton, Group, Text, Textarea } from '@mantine/core';

/** The Recipients box, and a CSV file's numbers added to it (with what was added, once read). */
export function RecipientsInput({
  to,
  country,
  imported,
  onChange,
  onCsvFile,
}: {
  to: string;
  country: string | null;
  imported: string | null;
  onChange(to: string): void;
  onCsvFile(file: File | null): void;
}) {
  return (
    <>
      <Textarea
        label="Recipients"
        description={`One number a line, or numbers separated by commas; spaces, dashes and brackets inside a number are fine.${country ? ` Numbers without + and a country code are read as ${country} numbers.` : ' Write each with + and its country code.'}`}
        placeholder={'+14155550123\n(415) 555-0124'}
        autosize
        minRows={2}
        value={to}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
      <Group gap="sm">
        <FileButton onChange={onCsvFile} accept=".csv,text/csv,text/plain">
          {(props) => (
            <Button variant="default" size="xs" {...props}>
              Add numbers from a CSV file
            </Button>
          )}
        </FileButton>
        {imported && (
          <Text size="sm" role="status">
            {imported}
          </Text>
        )}
      </Group>
    </>
  );
}
