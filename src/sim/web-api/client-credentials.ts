/** The app's client_id and client_secret, as oauth.* methods and apps.uninstall require them (form fields or HTTP Basic). */
import { ApiError } from './api-error.ts';
import { stringArg, type CallParams } from './request-params.ts';
import type { SimApp } from './settings.ts';

export function checkClientCredentials(params: CallParams, app: SimApp): void {
  const clientId = stringArg(params, 'client_id') ?? params.basic?.clientId ?? null;
  const clientSecret = stringArg(params, 'client_secret') ?? params.basic?.clientSecret ?? null;
  if (clientId === null) throw new ApiError('invalid_client_id', 'client_id is required');
  if (clientId !== app.clientId) throw new ApiError('invalid_client_id', 'client_id is not this app\u2019s');
  if (clientSecret === null) throw new ApiError('bad_client_secret', 'client_secret is required');
  if (clientSecret !== app.clientSecret) throw new ApiError('bad_client_secret', 'client_secret does not match the app');
}
