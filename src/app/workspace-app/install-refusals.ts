/**
 * An installation's refusals (InstallError) as every face answers them: the one status per
 * failure, shared by the admin pages and the app's OAuth pages, and the one ApiError, for the
 * install API and for a subscription naming an installation's conversation (from JSON or a form).
 */
import { ApiError } from '../../core/errors.ts';
import { InstallError } from './installs.ts';

export type InstallRefusalStatus = 400 | 404 | 409 | 502;

/** The status a refusal is answered with, on a page or in the API. */
export function installFailureStatus(error: InstallError): InstallRefusalStatus {
  switch (error.failure) {
    case 'not_found':
      return 404;
    case 'already_exchanged':
    case 'unavailable':
      return 409;
    case 'vendor':
      return 502;
    default:
      return 400;
  }
}

const API_CODES: Partial<Record<InstallError['failure'], string>> = {
  not_found: 'installation_not_found',
  already_exchanged: 'token_already_exchanged',
  unavailable: 'installation_unavailable',
  vendor: 'vendor_error',
};

/** Rethrows an InstallError as its ApiError; anything else as it is. */
export function installErrorToApi(error: unknown): never {
  if (!(error instanceof InstallError)) throw error;
  // The vendor refusing a cursor we handed on means it expired: start from the first page.
  if (error.failure === 'vendor' && error.vendorCode === 'invalid_cursor')
    throw new ApiError(400, 'invalid_cursor', 'the page link has expired (vendor cursors do not last); start from the first page');
  throw new ApiError(installFailureStatus(error), API_CODES[error.failure] ?? error.failure, error.message);
}
