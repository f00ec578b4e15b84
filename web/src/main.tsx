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
      styles: { title: { color: 'var(--pg-alert-text)' }, message: { color: 'var(--pg-alert-text)' } },
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
// The colours of words that carry a meaning (an error, a success, a warning, a badge's label), per
// scheme, each above 4.5:1 on its background (WCAG AA for small text): the darkest shades on white,
// light ones on Mantine's dark body.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  // Mantine's dimmed grey is below 4.5:1 on white; one shade darker passes. Red error text as Mantine
  // draws it (red 6) is 3.3:1 on white; red 9 is above 4.5:1.
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--pg-danger': 'var(--mantine-color-red-9)',
    '--pg-ok': 'var(--mantine-color-teal-9)',
    '--pg-warn': 'var(--mantine-color-orange-9)',
    '--pg-badge-text': 'var(--mantine-color-dark-9)',
    '--pg-alert-text': 'var(--mantine-color-black)',
    '--pg-focus': 'var(--mantine-color-indigo-8)',
  },
  dark: {
    // Dimmed text as Mantine draws it (dark 2) is below 4.5:1 on a card (dark 6); dark 1 is above.
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--pg-danger': 'var(--mantine-color-red-3)',
    '--pg-ok': 'var(--mantine-color-teal-3)',
    '--pg-warn': 'var(--mantine-color-orange-3)',
    '--pg-badge-text': 'var(--mantine-color-gray-0)',
    '--pg-alert-text': 'var(--mantine-color-gray-0)',
    '--pg-focus': 'var(--mantine-color-indigo-3)',
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={resolver}>
      <RouterProvider>
        <ConfirmProvider>
          <App />
        </ConfirmProvider>
      </RouterProvider>
    </MantineProvider>
  </StrictMode>,
);
