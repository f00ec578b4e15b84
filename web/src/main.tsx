import '@mantine/core/styles.css';
import './styles.css';
import {
  Alert,
  Anchor,
  createTheme,
  MantineProvider,
  Modal,
  PasswordInput,
  type CSSVariablesResolver,
} from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ConfirmProvider } from './components/confirm';
import { RouterProvider } from './lib/router';

// Darker primary shades than Mantine's default blue keep white button text above 4.5:1 contrast.
// Alert titles in the light variant's own colour (yellow, teal) are too pale to read; black is not.
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  components: {
    Alert: Alert.extend({
      styles: { title: { color: 'var(--mantine-color-black)' }, message: { color: 'var(--mantine-color-black)' } },
    }),
    // A link inside text must show without its colour (WCAG 1.4.1): underlined.
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    // Mantine's close button is an icon alone; a screen reader needs its name.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    // Reachable with Tab (Mantine leaves it out of the tab order), named for what it does.
    PasswordInput: PasswordInput.extend({
      defaultProps: { visibilityToggleFocusable: true, visibilityToggleButtonProps: { 'aria-label': 'Show password' } },
    }),
  },
});
// Mantine's dimmed grey is below 4.5:1 on white; one shade darker passes WCAG AA for small text.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  // Red error text as Mantine draws it (red 6) is 3.3:1 on white; red 9 is above 4.5:1.
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {},
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={resolver}>
      <RouterProvider>
        <ConfirmProvider>
          <App />
        </ConfirmProvider>
      </RouterProvider>
    </MantineProvider>
  </StrictMode>,
);
