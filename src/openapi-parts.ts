import type { DocumentParts } from './openapi/document';
import { operations } from './openapi/operations';
import { resources } from './openapi/resources';

// Every feature's part of the OpenAPI document, gathered here rather than in src/openapi/ (which the
// features' parts import): app.ts serves the document of these parts, web/scripts/generate-api.ts types
// the dashboard by it, and test/openapi/ checks them against the app's routes and views.

export { operations, resources };

export const openapiParts: DocumentParts = { operations, resources };
