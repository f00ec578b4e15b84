import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

interface Ask {
  title: string;
  message: ReactNode;
  confirmLabel: string;
}
type Confirm = (ask: Ask) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** Every destructive action goes through confirm(): a modal with the consequence spelled out. */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [ask, setAsk] = useState<Ask | null>(null);
  const resolveRef = useRef<(answer: boolean) => void>(() => undefined);
  const confirm = useCallback<Confirm>(
    (next) =>
      new Promise<boolean>((resolve) => {
        resolveRef.current = resolve;
        setAsk(next);
      }),
    [],
  );
  const answer = (value: boolean) => {
    setAsk(null);
    resolveRef.current(value);
  };
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <Modal opened={ask !== null} onClose={() => answer(false)} title={ask?.title} centered>
        <Stack>
          <Text size="sm">{ask?.message}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => answer(false)}>
              Cancel
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
