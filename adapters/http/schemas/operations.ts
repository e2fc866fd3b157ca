import { z } from 'zod';

/* What the operations answer is declared once, in core/api/wire (docs/architecture.md); here, the HTTP adapter's own. */
export * from '../../../core/api/wire/operations.js';

export const HealthSchema = z.strictObject({ status: z.literal('ok') }).meta({ title: 'Health' });

/** The OpenAPI document itself: any JSON object. */
export const OpenApiDocumentSchema = z.record(z.string(), z.unknown()).meta({ title: 'OpenApiDocument' });
