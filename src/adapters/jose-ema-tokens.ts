/**
 * The JOSE side of enterprise-managed authorization, with `jose` (Node and Workers
 * alike): verifying an identity provider's ID-JAG against its published keys, and issuing and
 * verifying the short-lived access tokens /mcp accepts (HS256 under a key kept in the archive).
 */
import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { isWellFormed, NOT_WELL_FORMED_MESSAGE } from '../core/well-formed-text.ts';
import { type CappedRead, createTextPrefix, readCappedBody } from './capped-body.ts';

/** The ID-JAG's JWT type (draft-ietf-oauth-identity-assertion-authz-grant). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** The spec's sample: EMA access tokens live one hour. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/**
 * Accepted skew between the identity provider's clock and ours, both ways: `exp`, `nbf` and `iat`
 * are checked with it, so an ID-JAG still verifies up to this long after its `exp`, and its spent
 * `jti` is remembered as long (`verifiableUntilMs`).
 */
const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * The longest-lived ID-JAG accepted (`exp - iat`). The spec's sample lives 300 s; twice that leaves
 * room for a provider that gives a little more, and it bounds how long a spent `jti` is remembered:
 * at most this plus twice the skew after the grant, whatever `exp` claims.
 */
export const ID_JAG_MAX_LIFETIME_SECONDS = 600;
/** Keys are fetched at most this long, body included; a provider that does not answer refuses the grant, never allows it. */
const JWKS_TIMEOUT_MS = 5000;
/** The largest key set read: a provider publishes a few keys of under 1 KB each (an RSA-4096 key is about 800 bytes). */
export const JWKS_MAX_BYTES = 64 * 1024;

/** Why an assertion was refused: logged (never the assertion), and said in the OAuth error body. */
export type AssertionRefusal =
  | 'malformed'
  | 'wrong_type'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_claim'
  | 'wrong_client'
  | 'too_long_lived'
  | 'keys_unavailable';

export class AssertionRefused extends Error {
  override readonly name = 'AssertionRefused';
  constructor(
    readonly reason: AssertionRefusal,
    message: string,
  ) {
    super(message);
  }
}

export type IdJagClaims = {
  iss: string;
  sub: string;
  jti: string;
  scope: string | undefined;
  clientId: string;
  /** The last moment this assertion verifies (`exp` plus the skew), epoch ms: how long its spent `jti` must be remembered. */
  verifiableUntilMs: number;
};

export type IdJagVerifier = (assertion: string, expected: { audience: string; clientId: string; nowMs: number }) => Promise<IdJagClaims>;

/**
 * Verifies signature (keys from `jwksUrl`, cached by jose), typ, iss, aud, exp, nbf, iat (not in the
 * future), the lifetime, and the claims a grant needs.
 */
export function createIdJagVerifier(settings: { issuer: string; jwksUrl: string }): IdJagVerifier {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: JWKS_TIMEOUT_MS, [customFetch]: fetchKeySet });
  return async (assertion, expected) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(assertion, keys, {
        issuer: settings.issuer,
        audience: expected.audience,
        typ: ID_JAG_TYP,
        currentDate: new Date(expected.nowMs),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
        // Makes jose refuse an iat later than now plus the skew (and one older than the lifetime).
        maxTokenAge: ID_JAG_MAX_LIFETIME_SECONDS,
        // Asymmetric only: an HMAC "signed" with a public key must never pass.
        algorithms: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'],
      }));
    } catch (error) {
      throw classify(error);
    }
    // jti keys the assertion's spent row and sub names the client (iss is ours, checked above): a key
    // with half a surrogate pair would be stored repaired, and two assertions' keys could become one.
    const unreadable = (['sub', 'jti'] as const).find((claim) => typeof payload[claim] !== 'string' || !isWellFormed(payload[claim]));
    if (unreadable) throw new AssertionRefused('malformed', `the assertion's ${unreadable} is ${NOT_WELL_FORMED_MESSAGE}`);
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
    if (clientId !== expected.clientId) throw new AssertionRefused('wrong_client', 'the assertion was issued for another client');
    if (payload.exp! - payload.iat! > ID_JAG_MAX_LIFETIME_SECONDS) {
      throw new AssertionRefused(
        'too_long_lived',
        `the assertion lives longer than ${ID_JAG_MAX_LIFETIME_SECONDS} s (exp - iat); ask for a shorter-lived ID-JAG`,
      );
    }
    return {
      iss: payload.iss!,
      sub: payload.sub!,
      jti: payload.jti!,
      verifiableUntilMs: (payload.exp! + CLOCK_TOLERANCE_SECONDS) * 1000,
      scope: typeof payload.scope === 'string' ? payload.scope : undefined,
      clientId,
    };
  };
}

/** Why the key set could not be read: the grant is refused as for now (503), never as a bad assertion. */
class KeysUnreadable extends Error {
  override readonly name = 'KeysUnreadable';
}

/**
 * jose's fetch of the key set, bounded: no redirect is followed (a provider publishes its keys where
 * it says), at most JWKS_MAX_BYTES are read, within jose's timeout (`signal`, body included), and
 * anything but a 200 with a JSON key set is KeysUnreadable, so nothing unreadable is cached as keys.
 */
const fetchKeySet: FetchImplementation = async (url, options) => {
  const failed = (what: string) => new KeysUnreadable(options.signal.aborted ? `the key set took longer than ${JWKS_TIMEOUT_MS} ms` : what);
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', headers: options.headers, signal: options.signal, redirect: 'manual' });
  } catch (error) {
    throw failed(`the key set could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200) {
    response.body?.cancel().catch(() => {});
    throw new KeysUnreadable(`the key set answered HTTP ${response.status}, not 200`);
  }
  const text = createTextPrefix(JWKS_MAX_BYTES);
  let read: CappedRead;
  try {
    // One byte past the cap tells a body of exactly the cap from a longer one.
    read = await readCappedBody(response.body, JWKS_MAX_BYTES + 1, (chunk) => text.add(chunk));
  } catch (error) {
    throw failed(`the key set was cut off: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (read.cut) throw new KeysUnreadable(`the key set is larger than ${JWKS_MAX_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.text);
  } catch {
    throw new KeysUnreadable('the key set is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new KeysUnreadable('the key set has no keys array');
  }
  return new Response(text.text, { status: 200, headers: { 'content-type': 'application/json' } });
};

function classify(error: unknown): AssertionRefused {
  if (error instanceof KeysUnreadable) return new AssertionRefused('keys_unavailable', `the identity provider's keys could not be read: ${error.message}`);
  if (error instanceof errors.JWTExpired) return new AssertionRefused('expired', 'the assertion has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return new AssertionRefused('missing_claim', `the assertion lacks a valid ${error.claim} claim`);
    if (error.claim === 'iss') return new AssertionRefused('wrong_issuer', 'the assertion was not issued by the configured identity provider');
    if (error.claim === 'aud') return new AssertionRefused('wrong_audience', 'the assertion is not for this MCP server');
    if (error.claim === 'nbf' || error.claim === 'iat') return new AssertionRefused('not_yet_valid', 'the assertion is not valid yet');
    if (error.claim === 'typ') return new AssertionRefused('wrong_type', `the assertion is not an ID-JAG (typ ${ID_JAG_TYP})`);
    return new AssertionRefused('missing_claim', `the assertion lacks a valid ${error.claim} claim`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JOSEAlgNotAllowed) {
    return new AssertionRefused('bad_signature', "the assertion's signature does not verify with the identity provider's keys");
  }
  // The key set's fetch and its timeout end as KeysUnreadable above (fetchKeySet catches them);
  // what remains is a published key jose will not use: a malformed set, or a key it refuses to
  // import (a TypeError, e.g. an RSA key under 2048 bits).
  if (error instanceof errors.JWKSInvalid || error instanceof TypeError) {
    return new AssertionRefused('keys_unavailable', "the identity provider's keys could not be read");
  }
  return new AssertionRefused('malformed', 'the assertion is not a well-formed signed JWT');
}

export type AccessTokenClaims = { sub: string; scopes: string[]; clientId: string };

/** Access tokens of this server: HS256 under `secret` (a random value kept in the archive). */
export function accessTokens(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(claims: AccessTokenClaims, settings: { issuer: string; audience: string; nowMs: number }): Promise<string> {
      const iat = Math.floor(settings.nowMs / 1000);
      return new SignJWT({ scope: claims.scopes.join(' '), client_id: claims.clientId })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setSubject(claims.sub)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TOKEN_LIFETIME_SECONDS)
        .setJti(crypto.randomUUID())
        .sign(key);
    },
    /**
     * The claims; `expired` for a token of ours for `audience` that is past its time (signature and
     * claims good); null for anything else.
     */
    async verify(token: string, settings: { issuer: string; audience: string; nowMs: number }): Promise<AccessTokenClaims | 'expired' | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: settings.issuer,
          audience: settings.audience,
          typ: 'at+jwt',
          algorithms: ['HS256'],
          currentDate: new Date(settings.nowMs),
          requiredClaims: ['exp', 'sub'],
        });
        const scope = typeof payload.scope === 'string' ? payload.scope : '';
        return { sub: payload.sub!, scopes: scope.split(' ').filter(Boolean), clientId: String(payload.client_id ?? '') };
      } catch (error) {
        // jose checks the signature before the claims: an expired one was signed with our key.
        return error instanceof errors.JWTExpired ? 'expired' : null;
      }
    },
  };
}

export type AccessTokens = ReturnType<typeof accessTokens>;
