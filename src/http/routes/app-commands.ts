/**
 * The app's `/status [service or watched page's name]` slash command, at the path the manifest names. Nothing
 * is read or answered before the request is proven to be the vendor's: signature over
 * `v0:timestamp:body` with APP_SIGNING_SECRET, timestamp within five minutes, and a signature not
 * seen before (a bounded seen-set in the store, shared by every process and isolate).
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../../core/errors.ts';
import { suggestService } from '../../core/known-services.ts';
import { slashStatusAnswer, slashUnknownServiceAnswer } from '../../core/workspace-app/slash-answer.ts';
import { checkSlashRequest, SIGNATURE_HEADER, SLASH_MAX_SKEW_SECONDS, TIMESTAMP_HEADER } from '../../core/workspace-app/slash-signature.ts';
import { APP_PATHS } from '../../core/workspace-app/manifest.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveReads, OneTimeKeyStore, SourceStore } from '../../core/ports.ts';
import { currentStatus } from '../../app/current-status.ts';
import { vendorServiceNames } from '../../app/known-services.ts';
import { sourceNamed } from '../../app/source-status.ts';

/** A slash command's form is a few hundred bytes; the vendor caps the text it carries. */
const COMMAND_MAX_BYTES = 16 * 1024;
export const SLASH_SIGNATURES_KIND = 'slash-signature';
/**
 * Signatures remembered at once. A replay is refused while its signature is kept: past this many
 * commands in five minutes the oldest are forgotten early, so a replay would need the request to
 * be one of more than this many signed ones in that window.
 */
export const SLASH_SIGNATURES_MAX = 10_000;

export type AppCommandRouteDeps = Pick<AppDeps, 'clock' | 'appSigningSecret' | 'publicUrl'> & {
  store: ArchiveReads & Pick<OneTimeKeyStore, 'rememberKey'> & Pick<SourceStore, 'getSource' | 'componentStates' | 'listSources'>;
};

export function appCommandRoutes(deps: AppCommandRouteDeps) {
  const { store, clock } = deps;
  const app = new Hono();
  const known = vendorServiceNames(store, clock);

  app.post(
    APP_PATHS.slashCommand,
    bodyLimit({
      maxSize: COMMAND_MAX_BYTES,
      onError: () => Promise.reject(new ApiError(413, 'too_large', `a command body is at most ${COMMAND_MAX_BYTES} bytes`)),
    }),
    async (c) => {
      if (!deps.appSigningSecret) throw new ApiError(503, 'app_not_configured', 'set APP_SIGNING_SECRET to answer slash commands');
      const body = await c.req.text();
      const now = clock.now();
      const check = await checkSlashRequest({
        secret: deps.appSigningSecret,
        timestamp: c.req.header(TIMESTAMP_HEADER),
        signature: c.req.header(SIGNATURE_HEADER),
        body,
        nowMs: now,
      });
      if (!check.ok) throw new ApiError(401, 'invalid_request_signature', `the request is not signed by the vendor (${check.reason})`);
      // Kept as long as its timestamp could pass the check, and a second more.
      const expiresAt = (check.timestampSeconds + SLASH_MAX_SKEW_SECONDS + 1) * 1000;
      const fresh = await store.rememberKey({ kind: SLASH_SIGNATURES_KIND, key: check.signature, payload: '', expiresAt }, now, SLASH_SIGNATURES_MAX);
      if (!fresh) throw new ApiError(401, 'replayed_request', 'this signed request was answered before');

      const text = (new URLSearchParams(body).get('text') ?? '').trim();
      const baseUrl = deps.publicUrl ?? new URL(c.req.url).origin;
      let service: string | null = null;
      if (text !== '') {
        const names = await known();
        // Typed by a person in a chat: the case they used does not matter.
        service = names.includes(text) ? text : suggestService(text, names);
        if (service === null) {
          // Not one of the vendor's services: a watched page by its name, answered as its widget is.
          const sources = await store.listSources();
          const page = sourceNamed(sources, text);
          if (page)
            return c.json(slashStatusAnswer(await currentStatus({ store, clock }, { services: undefined, baseUrl, nowMs: now, source: page.id }), null));
          return c.json(
            slashUnknownServiceAnswer(
              text,
              names,
              `${baseUrl.replace(/\/+$/, '')}/`,
              sources.map((source) => source.name),
            ),
          );
        }
      }
      const services = service === null ? undefined : [service];
      const widget = await currentStatus({ store, clock }, { services, baseUrl, nowMs: now });
      return c.json(slashStatusAnswer(widget, service));
    },
  );
  return app;
}
