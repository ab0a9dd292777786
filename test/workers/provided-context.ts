/** What the workers project's global setup (test/helpers/workers-global-setup.ts) provides to the tests. */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The simulated vendor on loopback, e.g. http://127.0.0.1:40123 */
    simUrl: string;
    /** The verifying webhook receiver on loopback (POST /hook/<name>, POST /_verify?path=). */
    receiverUrl: string;
    /** The simulated identity provider on loopback: EMA_ISSUER, with its JWKS at /.well-known/jwks.json. */
    idpUrl: string;
    /** The simulated SCIM directory on loopback (`/scim/v2`, `/_sim`), and its bearer token. */
    scimUrl: string;
    scimToken: string;
  }
}
export {};
