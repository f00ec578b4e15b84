import { type Operation, op, tagged } from './operation';

// The document's own operation (openapi.routes.ts); /docs, a page for people, is not in it.
export const openapiOperations: Operation[] = tagged('Meta', [
  op('GET /v1/openapi.json', 'none', 'This OpenAPI document', { 200: { type: 'object' } }),
]);
