/**
 * A UUID as the service writes and reads them: the plain hyphenated form with a version and
 * variant, as PostgreSQL's uuid type takes it. JSON Schema's `uuid` format alone also takes a
 * `urn:uuid:` prefix, which PostgreSQL refuses, so the schemas add this pattern.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';

const UUID = new RegExp(UUID_PATTERN);

export function isUuid(id: string): boolean {
  return UUID.test(id);
}
