/**
 * The email subscription pages: `/subscribe` (sign-up with double opt-in) and the pages email links
 * open, `/subscribe/confirm`, `/unsubscribe` (also the RFC 8058 one-click target) and `/manage`.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isWellFormedToken, type TokenPurpose } from '../../core/confirmation-token.ts';
import { ApiError } from '../../core/errors.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import { createSubscriptionSchema, serviceFilterEntry, servicesOfSource } from '../../core/subscription.ts';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { unknownServices, unknownServiceDetail } from '../../core/known-services.ts';
import type { AppDeps } from '../deps.ts';
import { type KnownServicesStore, knownServiceNames } from '../../app/known-services.ts';
import { formValue, formValues, readForm, type FormBody } from '../form-body.ts';
import { sameOriginForms } from '../form-origin.ts';
import { ErrorMessage } from '../pages/error-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { emptyChoices, type ChoiceValues, type FieldErrors, type FieldName, type SubscribeValues } from '../pages/subscribe-form.tsx';
import {
  CheckInboxPage,
  ConfirmedPage,
  ConfirmPage,
  LinkHelp,
  ManagePage,
  SavedPage,
  SubscribePage,
  UnsubscribedPage,
  UnsubscribePage,
} from '../pages/subscription-pages.tsx';

/** Generous for fifty filter entries and a zone; anything bigger is not our form. */
const FORM_MAX_BYTES = 16 * 1024;

export type SubscribePageRouteDeps = Pick<AppDeps, 'subscriptions' | 'assets' | 'publicUrl' | 'clientAddress' | 'clock'> & { store: KnownServicesStore };

export function subscribePageRoutes(deps: SubscribePageRouteDeps) {
  const { subscriptions } = deps;
  const app = new Hono();
  const formPage = pageSecurity({ forms: true });
  // Pages reached by a link token show an address and act for its owner: no cache keeps them.
  const linkPage = pageSecurity({ forms: true, noStore: true });
  const schema = createSubscriptionSchema();

  const page = pageResponder(deps.assets);

  const limit = bodyLimit({
    maxSize: FORM_MAX_BYTES,
    onError: (c) => page(c, 'Form too large', <ErrorMessage title="Form too large" message="That was more than this form can hold." />, 413),
  });
  const sameOrigin = sameOriginForms(deps.publicUrl, (c) =>
    page(
      c,
      'Form refused',
      <ErrorMessage title="Form refused" message="This form was sent from another site, so it was not accepted.">
        <p>
          <a href="/subscribe">Open the sign-up form here</a> and send it again.
        </p>
      </ErrorMessage>,
      403,
    ),
  );

  /** A link that does not work (unknown, expired, used): a page that says what to do, with a fitting status. */
  const linkProblem = (c: Context, purpose: TokenPurpose, error: ApiError) => {
    // A used confirm link can only mean the subscription was confirmed: say so, not "used".
    const already = purpose === 'confirm' && error.code === 'token_used';
    const { title, status } = already
      ? { title: 'Already confirmed', status: 409 as const }
      : error.code === 'token_expired'
        ? { title: 'This link has expired', status: 410 as const }
        : error.code === 'token_used'
          ? { title: 'Link already used', status: 409 as const }
          : { title: 'This link does not work', status: 404 as const };
    const message = already
      ? 'This subscription is already confirmed: updates are on their way. There is nothing more to do.'
      : (error.detail ?? 'This link is not valid.');
    return page(
      c,
      title,
      <ErrorMessage title={title} message={message}>
        {!already && <LinkHelp purpose={purpose} />}
      </ErrorMessage>,
      status,
    );
  };

  /** Runs `act` with a link token, or answers with the page for a link that does not work. */
  async function withToken(c: Context, purpose: TokenPurpose, token: string | undefined, act: (token: string) => Promise<Response>): Promise<Response> {
    if (!isWellFormedToken(token)) {
      const detail = token
        ? 'This link is not valid. It may have been cut short or mistyped: copy the whole link from the email.'
        : 'This link is missing its token: copy the whole link from the email.';
      return linkProblem(c, purpose, new ApiError(404, 'token_unknown', detail));
    }
    try {
      return await act(token);
    } catch (error) {
      if (error instanceof ApiError && (error.code.startsWith('token_') || error.code === 'subscription_not_found')) return linkProblem(c, purpose, error);
      throw error;
    }
  }

  /** The same checks as the API's sign-up body, so a form and a JSON client follow one set of rules. */
  const known = knownServiceNames(deps.store, deps.clock);
  const check = async (email: string, choices: ChoiceValues, kept: StoredSubscription['filters'] = {}) => {
    // The form chooses the main feed's services; those of other sources (an admin's) are kept.
    const services = [...choices.services, ...(kept.services ?? [])];
    const parsed = schema.safeParse({
      channel: 'email',
      email,
      filters: {
        ...kept,
        ...(services.length ? { services } : { services: undefined }),
        ...(choices.types.length ? { types: choices.types } : { types: undefined }),
      },
      timezone: choices.timeZone || undefined,
    });
    if (!parsed.success) return { ok: false as const, errors: fieldErrors(parsed.error.issues) };
    // A service the vendor never named would never match: the reader is told, with the known names.
    const mainServices = servicesOfSource(parsed.data.filters.services, MAIN_FEED_SOURCE);
    const names = mainServices.length ? await known() : [];
    const unknown = unknownServices(mainServices, names);
    if (unknown.length > 0)
      return {
        ok: false as const,
        errors: { services: `${capitalise(unknownServiceDetail('services', unknown, names).replace(/^services: /, ''))}.` } as FieldErrors,
      };
    return { ok: true as const, input: parsed.data };
  };

  app.get('/subscribe', formPage, (c) =>
    subscriptions.emailEnabled
      ? page(c, 'Subscribe', <SubscribePage values={{ email: '', ...emptyChoices() }} errors={{}} fresh />)
      : page(
          c,
          'Email updates unavailable',
          <ErrorMessage
            title="Email updates are not available"
            message="This server has no email set up, so it cannot send updates by email. The feeds (Atom, RSS, JSON) carry the same news."
          />,
        ),
  );

  app.post('/subscribe', formPage, limit, sameOrigin, async (c) => {
    const form = await readForm(c);
    const values: SubscribeValues = { email: formValue(form.email).trim(), ...readChoices(form) };
    const checked = await check(values.email, values);
    if (!checked.ok) return page(c, 'Subscribe: please fix the form', <SubscribePage values={values} errors={checked.errors} />, 400);
    try {
      await subscriptions.signUp(checked.input, deps.clientAddress(c));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'email_disabled') {
        return page(
          c,
          'Email updates unavailable',
          <ErrorMessage title="Email updates are not available" message="This server has no email set up, so it cannot send updates by email." />,
          409,
        );
      }
      if (error.status !== 429 && error.status !== 503) throw error;
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      const problem =
        error.status === 429
          ? `Too many sign-ups just now: ${error.detail?.replace(/^too many sign-ups; /, '') ?? 'try again later'}.`
          : (error.detail ?? 'Please try again later.');
      return page(c, 'Subscribe: try again later', <SubscribePage values={values} errors={{}} problem={capitalise(problem)} />, error.status);
    }
    // Post/redirect/get: reloading the answer does not send another email (nor use up the limits).
    return c.redirect('/subscribe/sent', 303);
  });

  app.get('/subscribe/sent', formPage, (c) => page(c, 'Check your inbox', <CheckInboxPage />));

  app.get('/subscribe/confirm', linkPage, (c) =>
    withToken(c, 'confirm', c.req.query('token'), async (token) => {
      const subscription = await subscriptions.peek('confirm', token);
      return page(
        c,
        'Confirm your subscription',
        <ConfirmPage token={token} email={subscription.target} filters={subscription.filters} timeZone={subscription.timeZone} />,
      );
    }),
  );

  app.post('/subscribe/confirm', linkPage, limit, sameOrigin, async (c) => {
    const form = await readForm(c);
    return withToken(c, 'confirm', formValue(form.token), async (token) => {
      const subscription = await subscriptions.confirm(token);
      return page(c, 'You are subscribed', <ConfirmedPage email={subscription.target} />);
    });
  });

  app.get('/unsubscribe', linkPage, (c) =>
    withToken(c, 'unsubscribe', c.req.query('token'), async (token) => {
      const subscription = await subscriptions.peek('unsubscribe', token);
      return page(c, 'Unsubscribe', <UnsubscribePage token={token} email={subscription.target} />);
    }),
  );

  // RFC 8058 one-click: the mail provider posts `List-Unsubscribe=One-Click` with no Origin and no
  // cookies, so there is no CSRF check here; the unguessable token in the URL is the protection.
  app.post('/unsubscribe', linkPage, limit, async (c) => {
    const token = c.req.query('token') ?? formValue((await readForm(c)).token);
    return withToken(c, 'unsubscribe', token, async (valid) => {
      const subscription = await subscriptions.unsubscribe(valid);
      return page(c, 'Unsubscribed', <UnsubscribedPage email={subscription.target} />);
    });
  });

  app.get('/manage', linkPage, (c) =>
    withToken(c, 'manage', c.req.query('token'), async (token) => {
      const subscription = await subscriptions.peek('manage', token);
      return page(c, 'Your email updates', <ManagePage token={token} email={subscription.target} values={choicesOf(subscription)} errors={{}} />);
    }),
  );

  app.post('/manage', linkPage, limit, sameOrigin, async (c) => {
    const form = await readForm(c);
    return withToken(c, 'manage', formValue(form.token), async (token) => {
      const current = await subscriptions.peek('manage', token);
      const values = readChoices(form);
      // The form has no field for event types or sources (an admin may have set them), nor for the
      // services of a source other than the main feed: they are kept as they are.
      const checked = await check(current.target, values, {
        events: current.filters.events,
        monitor: current.filters.monitor ?? false,
        ...(current.filters.sources ? { sources: current.filters.sources } : {}),
        services: (current.filters.services ?? []).filter((entry) => serviceFilterEntry(entry).source !== MAIN_FEED_SOURCE),
      });
      if (!checked.ok) {
        return page(
          c,
          'Your email updates: please fix the form',
          <ManagePage token={token} email={current.target} values={values} errors={checked.errors} />,
          400,
        );
      }
      const saved = await subscriptions.manage(token, { filters: checked.input.filters, timeZone: checked.input.timeZone });
      return page(c, 'Changes saved', <SavedPage token={token} email={saved.target} filters={saved.filters} timeZone={saved.timeZone} />);
    });
  });

  app.post('/manage/unsubscribe', linkPage, limit, sameOrigin, async (c) => {
    const form = await readForm(c);
    return withToken(c, 'manage', formValue(form.token), async (token) => {
      const subscription = await subscriptions.peek('manage', token);
      await subscriptions.remove(subscription.id);
      return page(c, 'Unsubscribed', <UnsubscribedPage email={subscription.target} />);
    });
  });

  return app;
}

function readChoices(form: FormBody): ChoiceValues {
  const clean = (values: string[]) => [...new Set(values.map((v) => v.trim()).filter(Boolean))];
  return { services: clean(formValues(form.service)), types: clean(formValues(form.type)), timeZone: formValue(form.timezone).trim() };
}

function choicesOf(subscription: StoredSubscription): ChoiceValues {
  return {
    services: servicesOfSource(subscription.filters.services, MAIN_FEED_SOURCE),
    types: subscription.filters.types ?? [],
    timeZone: subscription.timeZone,
  };
}

/** The schema's issues, in words for a person, by the field they belong to. */
function fieldErrors(issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const [head, sub] = issue.path;
    const field: FieldName | null =
      head === 'email'
        ? 'email'
        : head === 'timezone'
          ? 'timeZone'
          : head === 'filters' && sub === 'services'
            ? 'services'
            : head === 'filters' && sub === 'types'
              ? 'types'
              : null;
    if (!field || errors[field]) continue;
    errors[field] =
      field === 'email'
        ? 'Enter an email address, such as ops@example.com.'
        : field === 'timeZone'
          ? 'Choose a time zone from the list.'
          : `${capitalise(issue.message.replace(/^filters\.\w+ /, field === 'services' ? 'services ' : 'kinds '))}.`;
  }
  return errors;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
