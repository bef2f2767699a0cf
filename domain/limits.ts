/**
 * How long the text a partner or an operator types may be (DESIGN section 9): the API's schemas,
 * the dashboard's forms and the operator commands all hold text to these.
 */
export const LIMITS = { address: 300, name: 100, description: 500, label: 100, stops: 10, webhookUrl: 2048 } as const;

/** The shortest password the dashboard and `ops partner:create` take. */
export const PASSWORD_MIN = 10;

/** Photo types and size accepted as proof of hand-over (the upload parser enforces the size: 413). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;
