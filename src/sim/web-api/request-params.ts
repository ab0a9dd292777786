/**
 * A method call's arguments as the vendor reads them: the query string, plus a form-encoded,
 * multipart or JSON body; the token from `Authorization: Bearer` (or a form `token` field), the
 * client credentials from the form or HTTP Basic.
 */
import { readBodyWithin } from '../../adapters/capped-body.ts';
import { ApiError } from './api-error.ts';

/** Bodies larger than this are refused (413) before they are read whole. */
export const REQUEST_BODY_MAX_BYTES = 1_000_000;

export type BodyKind = 'none' | 'form' | 'json';

export type CallParams = {
  kind: BodyKind;
  values: Record<string, unknown>;
  /** From the Authorization header, or a form or query `token`; never from a JSON body (the vendor ignores it there). */
  token: string | null;
  basic: { clientId: string; clientSecret: string } | null;
};

async function readCapped(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  const tooLarge = () => new ApiError('request_too_large', `the body is larger than ${REQUEST_BODY_MAX_BYTES} bytes`, 413);
  if (declared > REQUEST_BODY_MAX_BYTES) throw tooLarge();
  if (!request.body) return '';
  const bytes = await readBodyWithin(request.body, REQUEST_BODY_MAX_BYTES, declared);
  if (!bytes) throw tooLarge();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('invalid_charset', 'the body is not UTF-8');
  }
}

function basicCredentials(header: string | null): CallParams['basic'] {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

const fromSearch = (search: URLSearchParams): Record<string, string> => Object.fromEntries(search.entries());

export async function readCallParams(request: Request): Promise<CallParams> {
  const url = new URL(request.url);
  const authorization = request.headers.get('authorization');
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? null;
  const basic = basicCredentials(authorization);
  const query = fromSearch(url.searchParams);
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await readCapped(request);

  if (text === '') return { kind: 'none', values: query, token: bearer ?? stringOrNull(query.token), basic };
  if (type === 'application/x-www-form-urlencoded' || type === 'text/plain' || type === '') {
    const values = { ...query, ...fromSearch(new URLSearchParams(text)) };
    return { kind: 'form', values, token: bearer ?? stringOrNull(values.token), basic };
  }
  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await new Response(text, { headers: { 'content-type': request.headers.get('content-type')! } }).formData();
    } catch {
      throw new ApiError('invalid_form_data', 'the multipart body could not be read');
    }
    const values: Record<string, unknown> = { ...query };
    for (const [name, value] of form.entries()) if (typeof value === 'string') values[name] = value;
    return { kind: 'form', values, token: bearer ?? stringOrNull(values.token), basic };
  }
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'the body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new ApiError('json_not_object', 'a JSON body must be an object of arguments');
    return { kind: 'json', values: { ...query, ...(parsed as Record<string, unknown>) }, token: bearer, basic };
  }
  throw new ApiError('invalid_post_type', `Content-Type ${type} is not one of application/x-www-form-urlencoded, multipart/form-data, application/json`);
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** A string argument: strings as given, numbers and booleans from JSON as text; absent or empty is null. */
export function stringArg(params: CallParams, name: string): string | null {
  const value = params.values[name];
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** A required string argument, or the vendor's invalid_arguments naming it. */
export function requiredArg(params: CallParams, name: string): string {
  const value = stringArg(params, name);
  if (value === null) throw new ApiError('invalid_arguments', `${name} is required`);
  return value;
}

/** true, 1 and "true"/"1" are true (the vendor's booleans arrive both ways). */
export function booleanArg(params: CallParams, name: string): boolean {
  const value = params.values[name];
  return value === true || value === 1 || value === 'true' || value === '1';
}
