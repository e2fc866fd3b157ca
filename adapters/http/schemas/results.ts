/* Declared once in core/api/wire (docs/architecture.md); the HTTP adapter adds nothing to them. */
export * from '../../../core/api/wire/results.js';
