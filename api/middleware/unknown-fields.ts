import type { RequestHandler } from 'express';
import { distance } from 'fastest-levenshtein';
import type { TSchema } from 'typebox';
import { ApiError } from '../api-error';

/** A request body's JSON Schema as the OpenAPI document has it (TypeBox's output). */
type Schema = {
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

/** `dryRun`, `dry-run` and `DRY_RUN` all read as `dryrun`. */
const folded = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The known field a misspelled one most likely meant: the same letters in another case or
 * separator, then one that contains it (`stops` → `additional_stops`), then the nearest in edits.
 */
export function closestField(unknown: string, known: readonly string[]): string | undefined {
  const name = folded(unknown);
  const same = known.find((field) => folded(field) === name);
  if (same) return same;
  const containing = known.filter((field) => folded(field).includes(name) || name.includes(folded(field)));
  const candidates = containing.length > 0 ? containing : known;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const field of candidates) {
    const d = distance(name, folded(field));
    if (d < bestDistance) [best, bestDistance] = [field, d];
  }
  // A guess that shares almost nothing with the name helps nobody.
  return containing.length > 0 || bestDistance <= Math.max(2, Math.floor(name.length / 2)) ? best : undefined;
}

/** The schemas a value may match at one place: the branches of `anyOf`, `oneOf` and `allOf`, flattened. */
function branches(schema: Schema): Schema[] {
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return nested.length === 0 ? [schema] : nested.flatMap(branches);
}

/** Each field of `value` that `schema` does not name, as `path → what to say`, depth first. */
export function unknownFields(schema: TSchema, value: unknown, at = ''): Record<string, string> {
  const found: Record<string, string> = {};
  const options = branches(schema as Schema);
  if (Array.isArray(value)) {
    const items = options.map((option) => option.items).filter((item): item is Schema => item !== undefined);
    value.forEach((item, i) => {
      for (const itemSchema of items) Object.assign(found, unknownFields(itemSchema, item, `${at}[${i}]`));
    });
    return found;
  }
  if (value === null || typeof value !== 'object') return found;
  const objects = options.filter((option) => option.properties !== undefined);
  if (objects.length === 0) return found;
  const properties: Record<string, Schema> = Object.assign({}, ...objects.map((option) => option.properties));
  // Only where the document closes the object: an open one (a free-form map) takes any name.
  const closed = objects.every((option) => option.additionalProperties === false);
  const known = Object.keys(properties);
  for (const [name, field] of Object.entries(value)) {
    const path = at ? `${at}.${name}` : name;
    const fieldSchema = properties[name];
    if (fieldSchema) {
      Object.assign(found, unknownFields(fieldSchema, field, path));
      continue;
    }
    if (!closed) continue;
    const guess = closestField(name, known);
    found[path] = guess ? `is not a field of this request; did you mean ${guess}?` : 'is not a field of this request';
  }
  return found;
}

/** An operation whose JSON body refuses unknown fields, by its method and path under the API prefix. */
export interface StrictBody {
  method: string;
  path: RegExp;
  schema: TSchema;
}

/**
 * Refuses a JSON body that names a field its operation's schema does not have, 400 with each in
 * `details`: a misspelled field (`dryRun` for `dry_run`) would otherwise be dropped by the
 * validator, and the request go ahead without what the partner meant (decision 0182). Paths are
 * matched as sent, before anything decodes them, so a malformed one still reaches the validator's
 * own answer.
 */
export function refuseUnknownFields(operations: readonly StrictBody[]): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return next();
    const operation = operations.find((op) => op.method === req.method && op.path.test(req.path));
    if (!operation) return next();
    const found = unknownFields(operation.schema, body);
    const names = Object.keys(found);
    if (names.length === 0) return next();
    next(ApiError.badRequest(`Unknown field${names.length === 1 ? '' : 's'}: ${names.join(', ')}`, found));
  };
}
