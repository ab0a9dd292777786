/** The vendor's Web API as the app's token handling needs it (issue 10): rotation, exchange, identity. */

/** A token response (spec "Token response"), with `expires_in` as sent. */
export type TokenGrant = {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scopes: string[];
  botUserId: string;
  teamId: string;
};

export type TokenIdentity = { teamId: string; botUserId: string | null; userId: string };

export interface VendorWebApi {
  /** oauth.v2.access with grant_type=refresh_token: spends `refreshToken`. */
  refresh(refreshToken: string): Promise<TokenGrant>;
  /** oauth.v2.exchange: a long-lived token for an expiring pair; a second exchange is refused. */
  exchange(longLivedToken: string): Promise<TokenGrant>;
  /** auth.test: whom the token belongs to. */
  identify(accessToken: string): Promise<TokenIdentity>;
}
