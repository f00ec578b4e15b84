import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

interface Ask {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** The button that changes nothing ("Cancel" unless the action is itself a cancel). */
  cancelLabel?: string;
}
type Confirm = (ask: Ask) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** Every destructive action goes through confirm(): a modal with the consequence spelled out. */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  // The last question stays while the dialog fades out: clearing it there would leave a nameless
  // dialog on screen for a moment.
  const [ask, setAsk] = useState<Ask | null>(null);
  const [opened, setOpened] = useState(false);
  const resolveRef = useRef<(answer: boolean) => void>(() => undefined);
  const confirm = useCallback<Confirm>(
    (next) =>
      new Promise<boolean>((resolve) => {
        resolveRef.current = resolve;
        setAsk(next);
        setOpened(true);
      }),
    [],
  );
  const answer = (value: boolean) => {
    setOpened(false);
    resolveRef.current(value);
  };
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <Modal opened={opened} onClose={() => answer(false)} title={ask?.title} centered>
        <Stack>
          <Text size="sm">{ask?.message}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => answer(false)}>
              {ask?.cancelLabel ?? 'Cancel'}
            </Button>
            <Button color="red.9" onClick={() => answer(true)} data-autofocus>
              {ask?.confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </ConfirmContext.Provider>
  );
}

export function useConfirm(): Confirm {
  return useContext(ConfirmContext);
}
