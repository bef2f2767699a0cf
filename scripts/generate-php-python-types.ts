// The PHP and Python clients' generated halves, from the same OpenAPI document as the TypeScript
// client's types (`npm run client:generate` writes all three; `npm run lint` checks them):
//   clients/php/src/Generated/Operations.php       every partner and public operation: method, path, key, query, Idempotency-Key
//   clients/php/src/Generated/Schemas.php          each schema's fields (name => type, required) and its PHPStan array shape
//   clients/python/src/partner_delivery/schema.py  the same operations, and a TypedDict for each schema
// The hand-written clients call operations by their operationId from these tables, so a path or a
// field the document changes reaches them by generating again.

type Json = Record<string, unknown>;
interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  not?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  description?: string;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  tags?: string[];
  summary?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface GeneratedFile {
  /** Relative to the repository's root. */
  file: string;
  content: string;
}

/** The tags whose operations the clients call: a partner's own server, and the open endpoints. */
const CLIENT_TAGS = ['Partner', 'Public'];

interface ClientOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  /** Sent with the partner key (its security names partnerKey). */
  keyed: boolean;
  /** Takes an Idempotency-Key header. */
  idempotent: boolean;
  pathParams: string[];
  query: string[];
  /** Other headers the operation takes (Sandbox-Rider). */
  headers: string[];
  /** The request body's schema name, when it is a component. */
  body: string | null;
  /** The schema of the 2xx JSON answer, when there is one. */
  response: Schema | null;
}

function clientOperations(document: Document): ClientOperation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => (operation.tags ?? []).some((tag) => CLIENT_TAGS.includes(tag)))
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const bodySchema = operation.requestBody?.content['application/json']?.schema;
        const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
        return {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          summary: operation.summary ?? '',
          keyed: (operation.security ?? []).some((s) => Object.keys(s as Json).includes('partnerKey')),
          idempotent: parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          headers: parameters.filter((p) => p.in === 'header' && p.name !== 'Idempotency-Key').map((p) => p.name),
          body: bodySchema?.$ref ? refName(bodySchema.$ref) : null,
          response: success?.content?.['application/json']?.schema ?? null,
        };
      }),
  );
}

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
const pascal = (name: string) => name.replace(/(^|[_\-\s])([a-z0-9])/gi, (_m, _sep: string, c: string) => c.toUpperCase());

/** The component schemas the clients' operations and the callbacks name, and those they name in turn. */
function clientSchemaNames(document: Document, operations: ClientOperation[]): string[] {
  const seen = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const ref = (value as Schema).$ref;
      if (typeof ref === 'string') {
        const name = refName(ref);
        if (!seen.has(name)) {
          seen.add(name);
          visit(document.components.schemas[name]);
        }
      }
      Object.values(value).forEach(visit);
    }
  };
  for (const operation of operations) {
    visit(document.paths[operation.path]![operation.method.toLowerCase()]);
  }
  visit(document.webhooks);
  return Object.keys(document.components.schemas).filter((name) => seen.has(name));
}

/** A property no request may carry (`not: {}`): left out of the types. */
const forbidden = (schema: Schema) => schema.not !== undefined && Object.keys(schema).every((k) => k === 'not' || k === 'description');

// ── Python ───────────────────────────────────────────────────────────────────────────────────

const PYTHON_KEYWORDS = new Set(['from', 'class', 'def', 'import', 'global', 'lambda', 'pass', 'return', 'in', 'is', 'not', 'and', 'or', 'if', 'else', 'for', 'while', 'with', 'as', 'try', 'except', 'finally', 'raise', 'del', 'yield', 'assert', 'break', 'continue', 'async', 'await', 'None', 'True', 'False', 'nonlocal', 'elif']);

const pyLiteral = (value: unknown) => (typeof value === 'boolean' ? (value ? 'True' : 'False') : value === null ? 'None' : JSON.stringify(value));

function pythonTypes(document: Document, operations: ClientOperation[]): string {
  const classes: string[] = [];
  const aliases = new Set<string>();
  const typeOf = (schema: Schema, name: string): string => {
    if (schema.$ref) return refName(schema.$ref);
    if (schema.anyOf) {
      const parts = schema.anyOf.map((s, i) => (s.type === 'null' ? 'None' : typeOf(s, schema.anyOf!.length > 2 ? `${name}${i}` : name)));
      return [...new Set(parts)].join(' | ');
    }
    if (schema.const !== undefined) return `Literal[${pyLiteral(schema.const)}]`;
    if (schema.enum) {
      // Named for where it stands (DeliveryStatus, SimulateRequestStep), so a client can name it too.
      if (!aliases.has(name)) {
        aliases.add(name);
        classes.push(`${name} = Literal[${schema.enum.map(pyLiteral).join(', ')}]\n`);
      }
      return name;
    }
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${schema.items ? typeOf(schema.items, `${name}Item`) : 'Any'}]`;
      case 'object': {
        const properties = Object.entries(schema.properties ?? {}).filter(([, s]) => !forbidden(s));
        if (properties.length === 0) {
          const extra = schema.additionalProperties;
          return `dict[str, ${extra && typeof extra === 'object' ? typeOf(extra, `${name}Value`) : 'Any'}]`;
        }
        typedDict(name, schema);
        return name;
      }
      default:
        return 'Any';
    }
  };
  const typedDict = (name: string, schema: Schema): void => {
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {})
      .filter(([, s]) => !forbidden(s))
      .map(([key, s]) => {
        const type = typeOf(s, `${name}${pascal(key)}`);
        return { key, type: required.has(key) ? type : `NotRequired[${type}]`, description: s.description };
      });
    const plainKeys = fields.every(({ key }) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !PYTHON_KEYWORDS.has(key));
    const doc = schema.description ? `    """${schema.description.replace(/"""/g, "'''")}"""\n\n` : '';
    classes.push(
      plainKeys
        ? `class ${name}(TypedDict):\n${doc}${fields.map((f) => `    ${f.key}: ${f.type}`).join('\n') || '    pass'}\n`
        : `${name} = TypedDict(${JSON.stringify(name)}, {\n${fields.map((f) => `    ${JSON.stringify(f.key)}: ${f.type},`).join('\n')}\n})\n`,
    );
  };

  for (const name of clientSchemaNames(document, operations)) {
    const schema = document.components.schemas[name]!;
    const type = typeOf(schema, name);
    if (type !== name) classes.push(`${name} = ${type}\n`);
  }
  // Query strings and inline answers of the operations, named for the operation.
  for (const operation of operations) {
    const parameters = document.paths[operation.path]![operation.method.toLowerCase()]!.parameters ?? [];
    const query = parameters.filter((p) => p.in === 'query');
    for (const header of parameters.filter((p) => p.in === 'header' && p.name !== 'Idempotency-Key')) {
      typeOf(header.schema, `${pascal(operation.operationId)}${pascal(header.name)}`);
    }
    if (query.length > 0) {
      typedDict(`${pascal(operation.operationId)}Query`, {
        type: 'object',
        required: query.filter((p) => p.required).map((p) => p.name),
        properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
      });
    }
    if (operation.response && !operation.response.$ref && !(operation.response.items?.$ref)) {
      const name = `${pascal(operation.operationId)}Response`;
      const type = typeOf(operation.response, name);
      if (type !== name) classes.push(`${name} = ${type}\n`);
    }
  }
  return classes.join('\n\n');
}

function pythonOperations(operations: ClientOperation[]): string {
  const tuple = (values: string[]) => (values.length === 0 ? '()' : `(${values.map((v) => JSON.stringify(v)).join(', ')},)`);
  return operations
    .map(
      (o) =>
        `    ${JSON.stringify(o.operationId)}: Operation(${JSON.stringify(o.method)}, ${JSON.stringify(o.path)}, ` +
        `keyed=${o.keyed ? 'True' : 'False'}, idempotent=${o.idempotent ? 'True' : 'False'}, ` +
        `query=${tuple(o.query)}, headers=${tuple(o.headers)}, body=${o.body === null ? 'None' : JSON.stringify(o.body)}),`,
    )
    .join('\n');
}

function pythonFile(document: Document, operations: ClientOperation[]): string {
  return [
    '# Generated by `npm run client:generate` from the OpenAPI document the API serves at',
    '# /openapi.json. Do not edit: change api/openapi/ and generate again.',
    '"""The partner and public operations of the API, and a TypedDict for each schema they use."""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Any, Literal, NamedTuple, NotRequired, TypedDict',
    '',
    '',
    'class Operation(NamedTuple):',
    '    method: str',
    '    path: str',
    '    keyed: bool',
    '    """Sent with the partner key."""',
    '    idempotent: bool',
    '    """Takes an Idempotency-Key."""',
    '    query: tuple[str, ...]',
    '    headers: tuple[str, ...]',
    '    body: str | None',
    '    """The schema of the JSON body, when it has one."""',
    '',
    '',
    '#: Every operation tagged Partner or Public, by operationId.',
    'OPERATIONS: dict[str, Operation] = {',
    pythonOperations(operations),
    '}',
    '',
    '',
    pythonTypes(document, operations),
  ].join('\n');
}

// ── PHP ──────────────────────────────────────────────────────────────────────────────────────

const phpString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A PHPStan type for the schema, as json_decode(..., true) gives it (arrays for objects). */
function phpShape(schema: Schema): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return [...new Set(schema.anyOf.map((s) => (s.type === 'null' ? 'null' : phpShape(s))))].join('|');
  if (schema.const !== undefined) return typeof schema.const === 'string' ? phpString(schema.const) : JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => (typeof v === 'string' ? phpString(v) : JSON.stringify(v))).join('|');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'int|float'; // json_decode gives an int for a whole number
    case 'boolean':
      return 'bool';
    case 'null':
      return 'null';
    case 'array':
      return `list<${schema.items ? phpShape(schema.items) : 'mixed'}>`;
    case 'object': {
      const required = new Set(schema.required ?? []);
      const properties = Object.entries(schema.properties ?? {}).filter(([, s]) => !forbidden(s));
      if (properties.length === 0) return 'array<string, mixed>';
      const key = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : phpString(k));
      return `array{${properties.map(([k, s]) => `${key(k)}${required.has(k) ? '' : '?'}: ${phpShape(s)}`).join(', ')}}`;
    }
    default:
      return 'mixed';
  }
}

/** The short type of a field for the field lists: what a PHP caller passes or reads. */
function phpFieldType(schema: Schema): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return [...new Set(schema.anyOf.map((s) => (s.type === 'null' ? 'null' : phpFieldType(s))))].join('|');
  if (schema.const !== undefined || schema.enum) return 'string';
  if (schema.type === 'number') return 'float';
  if (schema.type === 'integer') return 'int';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'object' || schema.type === 'array') return 'array';
  return schema.type ?? 'mixed';
}

/** The opening lines of each generated PHP file. */
const PHP_GENERATED_HEADER = [
  '<?php',
  '',
  '// Generated by `npm run client:generate` from the OpenAPI document the API serves at',
  '// /openapi.json. Do not edit: change api/openapi/ and generate again.',
  '',
  'declare(strict_types=1);',
  '',
  'namespace PartnerDelivery\\Generated;',
  '',
];

function phpSchemasFile(document: Document, operations: ClientOperation[]): string {
  const names = clientSchemaNames(document, operations);
  const shapes = names.map((name) => ` * @phpstan-type ${name} ${phpShape(document.components.schemas[name]!)}`);
  const fields = names.map((name) => {
    const schema = document.components.schemas[name]!;
    const required = new Set(schema.required ?? []);
    const entries = Object.entries(schema.properties ?? {})
      .filter(([, s]) => !forbidden(s))
      .map(([key, s]) => `            ${phpString(key)} => [${phpString(phpFieldType(s))}, ${required.has(key) ? 'true' : 'false'}],`);
    return `        ${phpString(name)} => [\n${entries.join('\n')}\n        ],`;
  });
  return [
    ...PHP_GENERATED_HEADER,
    '/**',
    ' * Every schema the partner and public operations use: its fields, and its shape for PHPStan or',
    ' * Psalm (`@phpstan-import-type Delivery from Schemas`).',
    ' *',
    ...shapes,
    ' */',
    'final class Schemas',
    '{',
    '    /**',
    '     * Each schema\'s fields: name => [type, required].',
    '     *',
    '     * @var array<string, array<string, array{0: string, 1: bool}>>',
    '     */',
    '    public const FIELDS = [',
    ...fields,
    '    ];',
    '}',
    '',
  ].join('\n');
}

function phpOperationsFile(operations: ClientOperation[]): string {
  const list = (values: string[]) => `[${values.map(phpString).join(', ')}]`;
  const entries = operations.map(
    (o) =>
      `        ${phpString(o.operationId)} => ['method' => ${phpString(o.method)}, 'path' => ${phpString(o.path)}, ` +
      `'keyed' => ${o.keyed}, 'idempotent' => ${o.idempotent}, 'query' => ${list(o.query)}, ` +
      `'headers' => ${list(o.headers)}, 'body' => ${o.body === null ? 'null' : phpString(o.body)}],`,
  );
  return [
    ...PHP_GENERATED_HEADER,
    '/** Every operation tagged Partner or Public, by operationId. */',
    'final class Operations',
    '{',
    '    /**',
    '     * keyed: sent with the partner key; idempotent: takes an Idempotency-Key; body: the schema of',
    '     * the JSON body, when it has one.',
    '     *',
    '     * @var array<string, array{method: string, path: string, keyed: bool, idempotent: bool, query: list<string>, headers: list<string>, body: ?string}>',
    '     */',
    '    public const ALL = [',
    ...entries,
    '    ];',
    '}',
    '',
  ].join('\n');
}

/** The generated files of the PHP and Python clients, from the API's document. */
export function phpPythonClientFiles(document: Json): GeneratedFile[] {
  const doc = document as unknown as Document;
  const operations = clientOperations(doc);
  return [
    { file: 'clients/php/src/Generated/Operations.php', content: phpOperationsFile(operations) },
    { file: 'clients/php/src/Generated/Schemas.php', content: phpSchemasFile(doc, operations) },
    { file: 'clients/python/src/partner_delivery/schema.py', content: `${pythonFile(doc, operations).trimEnd()}\n` },
  ];
}
