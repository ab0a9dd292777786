/** The API reference page: every operation of the OpenAPI document, rendered by our own code (no CDN, no script). */
import type { ApiOperation } from '../openapi/openapi-document.ts';
import { toOpenApiPath } from '../openapi/openapi-document.ts';

export function ApiReferencePage({ operations }: { operations: ApiOperation[] }) {
  return (
    <section class="api-reference">
      <h1>JSON API reference</h1>
      <p>
        The machine-readable form is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Admin operations need{' '}
        <code>Authorization: Bearer $ADMIN_TOKEN</code>. Every refusal has one shape: <code>{'{"ok": false, "error": "<code>", "detail": "..."}'}</code>.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">What it does</th>
            <th scope="col">Query</th>
            <th scope="col">Success</th>
          </tr>
        </thead>
        <tbody>
          {operations.map((op) => (
            <tr>
              <td>
                <code>{op.method.toUpperCase()}</code>
              </td>
              <td>
                <code>{toOpenApiPath(op.path)}</code>
              </td>
              <td>
                {op.summary}
                {op.admin ? ' (admin)' : ''}
              </td>
              <td>{(op.query ?? []).map((q) => q.name).join(', ')}</td>
              <td>{op.ok.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
