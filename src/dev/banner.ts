/** What `npm start` prints once everything runs: where each part is reached. */
export function startBanner(parts: {
  /** PUBLIC_URL: where clients, phones and webhooks' links reach the API. */
  publicUrl: string;
  /** Where this process listens (http://localhost:PORT). */
  listenUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  metricsUrl?: string;
  dataDir: string;
}): string {
  const api =
    parts.publicUrl === parts.listenUrl
      ? `  API          ${parts.publicUrl}  (readiness: ${parts.publicUrl}/readyz)`
      : `  API          ${parts.publicUrl}  (listening on ${parts.listenUrl}, readiness: ${parts.listenUrl}/readyz)`;
  return (
    [
      '',
      api,
      `  Temporal     ${parts.temporalAddress}`,
      ...(parts.temporalUiUrl ? [`  Temporal UI  ${parts.temporalUiUrl}`] : []),
      ...(parts.metricsUrl ? [`  Metrics      ${parts.metricsUrl}`] : []),
      `  Data         ${parts.dataDir}`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n') + '\n'
  );
}
