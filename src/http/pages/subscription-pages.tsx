/** The bodies of the email subscription pages: sign-up, check your inbox, and the pages email links open. */
import type { SubscriptionFilters } from '../../core/subscription.ts';
import { ErrorSummary, ManageForm, SubscribeForm, type ChoiceValues, type FieldErrors, type SubscribeValues } from './subscribe-form.tsx';

/** A refusal that is not about one field (too many sign-ups, mail down): said above the form, which keeps its values. */
export function SubscribePage(props: { values: SubscribeValues; errors: FieldErrors; problem?: string; fresh?: boolean }) {
  return (
    <>
      <h1>Get status updates by email</h1>
      <p>One email per incident update, for the services you pick. Every email has a link to change your choices or to unsubscribe.</p>
      {props.problem && (
        <div class="warning" role="alert">
          <p>{props.problem}</p>
        </div>
      )}
      <ErrorSummary errors={props.errors} />
      <SubscribeForm values={props.values} errors={props.errors} fresh={props.fresh ?? false} />
    </>
  );
}

/** The same words whether the address was new, waiting or already subscribed: the page tells nobody which. */
export function CheckInboxPage() {
  return (
    <section class="notice-page" aria-labelledby="done-title">
      <h1 id="done-title">Check your inbox</h1>
      <p>
        We have sent an email to the address you gave. Open the link in it to confirm your subscription; until then, nothing else is sent. The link works for 7
        days.
      </p>
      <p class="muted">No email after a few minutes? Look in your spam folder, or try again later.</p>
      <p>
        <a href="/">Back to the status page</a>
      </p>
    </section>
  );
}

/** What a subscription gets, in words. */
export function ChoicesSummary(props: { filters: SubscriptionFilters; timeZone: string }) {
  const { services, types, events } = props.filters;
  return (
    <dl class="facts">
      <dt>Services</dt>
      <dd>{services?.length ? services.join(', ') : 'All services'}</dd>
      <dt>Kinds</dt>
      <dd>{types?.length ? types.join(', ') : 'All kinds'}</dd>
      {events?.length ? (
        <>
          <dt>Updates</dt>
          <dd>{events.join(', ')}</dd>
        </>
      ) : null}
      <dt>Time zone</dt>
      <dd>{props.timeZone}</dd>
    </dl>
  );
}

/** GET never confirms (mail scanners open links): the reader presses the button, which posts. */
export function ConfirmPage(props: { token: string; email: string; filters: SubscriptionFilters; timeZone: string }) {
  return (
    <section aria-labelledby="confirm-title">
      <h1 id="confirm-title">Confirm your subscription</h1>
      <p>
        Send status updates to <strong>{props.email}</strong>:
      </p>
      <ChoicesSummary filters={props.filters} timeZone={props.timeZone} />
      <form method="post" action="/subscribe/confirm" class="form-stack">
        <input type="hidden" name="token" value={props.token} />
        <div class="actions">
          <button type="submit">Confirm subscription</button>
        </div>
      </form>
      <p class="muted">Did not ask for this? Close this page: nothing is sent unless you confirm.</p>
    </section>
  );
}

export function ConfirmedPage(props: { email: string }) {
  return (
    <section class="notice-page" aria-labelledby="done-title">
      <h1 id="done-title">You are subscribed</h1>
      <p>
        Status updates will go to <strong>{props.email}</strong>. Every email has links to change what you receive or to unsubscribe.
      </p>
      <p>
        <a href="/">See the status now</a>
      </p>
    </section>
  );
}

/** `action` keeps the token in the URL: the same address a mail client's one-click POST uses. */
export function UnsubscribePage(props: { token: string; email: string }) {
  return (
    <section aria-labelledby="unsubscribe-title">
      <h1 id="unsubscribe-title">Unsubscribe</h1>
      <p>
        Stop sending status updates to <strong>{props.email}</strong>?
      </p>
      <OneClickUnsubscribeForm action={`/unsubscribe?token=${encodeURIComponent(props.token)}`} />
    </section>
  );
}

/** The button of an unsubscribe page: it posts what a mail client's RFC 8058 one-click posts. */
export function OneClickUnsubscribeForm(props: { action: string }) {
  return (
    <form method="post" action={props.action} class="form-stack">
      <input type="hidden" name="List-Unsubscribe" value="One-Click" />
      <div class="actions">
        <button type="submit" class="button-danger">
          Unsubscribe
        </button>
      </div>
    </form>
  );
}

export function UnsubscribedPage(props: { email: string }) {
  return (
    <section class="notice-page" aria-labelledby="done-title">
      <h1 id="done-title">You are unsubscribed</h1>
      <p>
        No more status updates will be sent to <strong>{props.email}</strong>. Changed your mind? <a href="/subscribe">Subscribe again</a>.
      </p>
    </section>
  );
}

export function ManagePage(props: { token: string; email: string; values: ChoiceValues; errors: FieldErrors }) {
  return (
    <>
      <h1>Your email updates</h1>
      <p>
        Choose what is sent to <strong>{props.email}</strong>.
      </p>
      <ErrorSummary errors={props.errors} />
      <ManageForm token={props.token} values={props.values} errors={props.errors} />
    </>
  );
}

export function SavedPage(props: { token: string; email: string; filters: SubscriptionFilters; timeZone: string }) {
  return (
    <section class="notice-page" aria-labelledby="done-title">
      <h1 id="done-title">Changes saved</h1>
      <p>
        From now on, <strong>{props.email}</strong> gets:
      </p>
      <ChoicesSummary filters={props.filters} timeZone={props.timeZone} />
      <p>
        <a href={`/manage?token=${encodeURIComponent(props.token)}`}>Change again</a>
      </p>
    </section>
  );
}

/** What to do about a link that no longer works, by what it was for. */
export function LinkHelp(props: { purpose: 'confirm' | 'unsubscribe' | 'manage' }) {
  if (props.purpose === 'confirm') {
    return (
      <p>
        <a href="/subscribe">Sign up again</a> to get a new link.
      </p>
    );
  }
  return (
    <p>
      Every status email ends with fresh links. Or <a href="/subscribe">sign up again</a> with your address: if it is still subscribed, we email you a new link
      to manage it.
    </p>
  );
}
