/**
 * The API reference page: every operation of the OpenAPI document with its parameters, request
 * body and answers, schemas as nested lists. Rendered by our own code from the same document
 * `/openapi.json` serves (no CDN, no script), and without tables, so it fits a phone.
 */

/** The part of JSON Schema (as zod writes it) the page reads. */
export type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
};

type Parameter = { name: string; in: string; required?: boolean; schema?: JsonSchema };
type Content = { 'application/json'?: { schema?: JsonSchema } };
type Operation = {
  summary?: string;
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Content };
  security?: unknown[];
  responses?: Record<string, { description?: string; content?: Content }>;
};
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** Nested schemas are shown this deep; the API's own go four levels at most. */
const MAX_SCHEMA_DEPTH = 8;

/** zod writes an unbounded integer with the bounds of a safe integer: they say nothing to a reader. */
const isMeaningfulBound = (n: number | undefined): n is number => n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER;

/** One line saying what a value is: its type and its rules. */
function typeLine(schema: JsonSchema): string {
  if (schema.const !== undefined) return `always ${JSON.stringify(schema.const)}`;
  const parts: string[] = [];
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
  if (type === 'array') parts.push(`array of ${schema.items ? typeLine(schema.items) : 'anything'}`);
  else if (type) parts.push(type);
  else if (schema.anyOf ?? schema.oneOf) parts.push('one of the forms below');
  else parts.push('any JSON value');
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (isMeaningfulBound(schema.minimum)) parts.push(`at least ${schema.minimum}`);
  if (isMeaningfulBound(schema.maximum)) parts.push(`at most ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`${schema.minLength} characters or more`);
  if (schema.maxLength !== undefined) parts.push(`${schema.maxLength} characters at most`);
  if (schema.maxItems !== undefined) parts.push(`${schema.maxItems} items at most`);
  if (schema.pattern !== undefined) parts.push(`matching ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(', ');
}

/** What is inside a value, if anything: an object's fields, an array's item fields, the forms of a union. */
function SchemaBody({ schema, depth }: { schema: JsonSchema; depth: number }) {
  if (depth >= MAX_SCHEMA_DEPTH) return <p class="api-schema-more">Deeper fields: see /openapi.json.</p>;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    return (
      <ol class="api-schema">
        {alternatives.map((alternative) => (
          <li>
            <span class="api-type">{typeLine(alternative)}</span>
            {alternative.description ? ` ${alternative.description}` : ''}
            <SchemaBody schema={alternative} depth={depth + 1} />
          </li>
        ))}
      </ol>
    );
  }
  if (schema.type === 'array' && schema.items) return <SchemaBody schema={schema.items} depth={depth} />;
  if (!schema.properties) return null;
  const required = new Set(schema.required ?? []);
  return (
    <ul class="api-schema">
      {Object.entries(schema.properties).map(([name, field]) => (
        <li>
          <code>{name}</code> <span class="api-type">{typeLine(field)}</span>
          {required.has(name) ? '' : <span class="api-optional"> (optional)</span>}
          {field.description ? <span class="api-description"> {field.description}</span> : ''}
          <SchemaBody schema={field} depth={depth + 1} />
        </li>
      ))}
    </ul>
  );
}

function SchemaView({ schema }: { schema: JsonSchema | undefined }) {
  if (!schema) return <p>Any JSON.</p>;
  return (
    <>
      <p>
        <span class="api-type">{typeLine(schema)}</span>
        {schema.description ? ` ${schema.description}` : ''}
      </p>
      <SchemaBody schema={schema} depth={0} />
    </>
  );
}

function OperationView({ method, path, op }: { method: string; path: string; op: Operation }) {
  const body = op.requestBody?.content?.['application/json']?.schema;
  const answers = Object.entries(op.responses ?? {}).filter(([status]) => status !== 'default');
  return (
    <article class="api-op" id={op.operationId} aria-labelledby={`${op.operationId}-title`}>
      <h2 id={`${op.operationId}-title`}>
        <code>{method.toUpperCase()}</code> <code>{path}</code>
      </h2>
      <p>
        {op.summary}
        {op.security?.length ? (
          <>
            {' '}
            <strong>Admin:</strong> needs <code>Authorization: Bearer $ADMIN_TOKEN</code>.
          </>
        ) : (
          ''
        )}
      </p>
      {op.parameters?.length ? (
        <>
          <h3>Parameters</h3>
          <ul class="api-schema">
            {op.parameters.map((param) => (
              <li>
                <code>{param.name}</code> <span class="api-type">in the {param.in}</span>
                {param.required ? ', required' : <span class="api-optional"> (optional)</span>}
                {param.schema ? `: ${typeLine(param.schema)}` : ''}
                {param.schema?.description ? <span class="api-description"> {param.schema.description}</span> : ''}
              </li>
            ))}
          </ul>
        </>
      ) : (
        ''
      )}
      {body ? (
        <>
          <h3>Request body (JSON)</h3>
          <SchemaView schema={body} />
        </>
      ) : (
        ''
      )}
      <h3>Answers</h3>
      {answers.map(([status, answer]) => (
        <>
          <p>
            <strong>{status}</strong> {answer.description}:
          </p>
          <SchemaView schema={answer.content?.['application/json']?.schema} />
        </>
      ))}
      <p>Otherwise: the error shape above.</p>
    </article>
  );
}

export function ApiReferencePage({ document }: { document: OpenApiDocument }) {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const errorSchema = operations.find(({ op }) => op.responses?.default)?.op.responses?.default?.content?.['application/json']?.schema;
  return (
    <section class="api-reference">
      <h1>JSON API reference</h1>
      <p>
        The machine-readable form is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); this page is made from it. Admin operations need{' '}
        <code>Authorization: Bearer $ADMIN_TOKEN</code>.
      </p>
      <h2>Every refusal</h2>
      <p>
        Any answer other than the ones an operation lists has one shape, <code>{'{"ok": false, "error": "<code>", "detail": "..."}'}</code>:
      </p>
      <SchemaBody schema={errorSchema ?? {}} depth={0} />
      <nav aria-label="Operations">
        <h2>Operations</h2>
        <ul class="api-index">
          {operations.map(({ path, method, op }) => (
            <li>
              <a href={`#${op.operationId}`}>
                <code>{method.toUpperCase()}</code> <code>{path}</code>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {operations.map(({ path, method, op }) => (
        <OperationView method={method} path={path} op={op} />
      ))}
    </section>
  );
}
