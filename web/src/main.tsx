import '@mantine/core/styles.css';
import { Alert, createTheme, MantineProvider, type CSSVariablesResolver } from '@mantine/core';
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
  },
});
// Mantine's dimmed grey is below 4.5:1 on white; one shade darker passes WCAG AA for small text.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
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
