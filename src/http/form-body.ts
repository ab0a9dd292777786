/** Reading a posted HTML form: text fields only, repeated names as lists, an unreadable body as an empty one. */
import type { Context } from 'hono';

export type FormBody = Record<string, string | File | (string | File)[]>;

/** Hono keeps the parsed form, so a middleware (the CSRF check) and the handler can both read it. */
export async function readForm(c: Context): Promise<FormBody> {
  try {
    return (await c.req.parseBody({ all: true })) as FormBody;
  } catch (error) {
    // A client that left mid-upload sent no form at all: dropped (onError), not read as an empty
    // one that a handler would act on (a sign-in counted as a wrong token).
    if (c.req.raw.signal.aborted) throw error;
    // A malformed body reads as an empty form: the checks that follow say what is missing.
    return {};
  }
}

/** Every text value posted under a name (file parts are not ours, and are dropped). */
export function formValues(value: FormBody[string] | undefined): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is string => typeof v === 'string');
}

/** The first text value posted under a name, or ''. */
export function formValue(value: FormBody[string] | undefined): string {
  return formValues(value)[0] ?? '';
}
