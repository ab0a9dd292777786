/**
 * /openapi.json checked by an independent validator of the official OpenAPI 3.1 schema. Needs the
 * dev dependency @seriousme/openapi-schema-validator (2.11.0); Node only: it compiles schemas with
 * ajv, which workerd forbids (no `new Function`).
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.ts';

/** Named in a variable so that tsc does not resolve it before the package is installed. */
const VALIDATOR_PACKAGE = '@seriousme/openapi-schema-validator';

type ValidatorModule = { Validator: new () => { validate(doc: object): Promise<{ valid: boolean; errors?: unknown }>; version: string } };

describe('OpenAPI document, independent validator', () => {
  it('is a valid OpenAPI 3.1 document by the official schema', async () => {
    const mod = (await import(/* @vite-ignore */ VALIDATOR_PACKAGE).catch((error: unknown) => {
      throw new Error(`install the dev dependency ${VALIDATOR_PACKAGE}@2.11.0 to run this test`, { cause: error });
    })) as ValidatorModule;
    const validator = new mod.Validator();
    const result = await validator.validate(buildOpenApiDocument());
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would refuse a broken document (the validator is not a rubber stamp)', async () => {
    const mod = (await import(/* @vite-ignore */ VALIDATOR_PACKAGE)) as ValidatorModule;
    const broken = { ...buildOpenApiDocument(), info: undefined };
    expect((await new mod.Validator().validate(broken)).valid).toBe(false);
  });
});
