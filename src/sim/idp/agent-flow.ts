/**
 * The agent platform's side of EMA, end to end against a (simulated) identity provider and
 * statuswatch: sign a user in, exchange the ID token for an ID-JAG, and trade the ID-JAG for an
 * access token at oauth.v2.user.access. What `npm run demo` does to hand out a working token.
 */

export type AgentFlowSettings = {
  idpUrl: string;
  /** Where statuswatch answers: its token endpoint is under it. */
  serviceUrl: string;
  /** statuswatch's PUBLIC_URL: the ID-JAG's audience is its /mcp. */
  publicUrl: string;
  clientId: string;
  clientSecret: string;
  sub: string;
  scope?: string;
};

export type EmaAccessToken = { access_token: string; expires_in: number; scope: string; token_type: string };

export async function emaAccessToken(settings: AgentFlowSettings): Promise<EmaAccessToken> {
  const login = (await (await fetch(`${settings.idpUrl}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub: settings.sub }) })).json()) as {
    id_token: string;
  };
  const exchanged = await fetch(`${settings.idpUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: login.id_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: `${settings.publicUrl}/mcp`,
      client_id: settings.clientId,
      scope: settings.scope ?? 'status:read incidents:read',
    }),
  });
  const idJag = (await exchanged.json()) as { access_token?: string; error?: string };
  if (!idJag.access_token) throw new Error(`the identity provider refused the token exchange: ${idJag.error}`);
  const granted = await fetch(`${settings.serviceUrl}/api/oauth.v2.user.access`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: idJag.access_token,
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
    }),
  });
  const token = (await granted.json()) as EmaAccessToken & { error?: string; error_description?: string };
  if (!granted.ok) throw new Error(`statuswatch refused the ID-JAG: ${token.error}: ${token.error_description}`);
  return token;
}
