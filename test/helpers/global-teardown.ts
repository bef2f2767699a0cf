/** Services are stopped by `npm test` itself. */
export default function globalTeardown(): void {}
