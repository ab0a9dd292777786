/**
 * The kinds of subscription the admin form can create, one entry each: its own fields (where
 * messages go), and how they become its part of the API's request body. Filters and time zone are
 * the same for every kind and live in the form itself (admin-subscription-form.tsx).
 *
 * To add a kind: write its fields and `requestBody` (the API body's kind-specific part, which the
 * API's own schema then checks) and list it in SUBSCRIPTION_FORM_KINDS.
 */
import type { Child } from 'hono/jsx';
import type { StoredSubscription } from '../../core/ports.ts';
import type { InstallationListDeps } from '../../app/workspace-app/installation-lists.ts';
import { groupIdOfTarget } from '../../core/scim-group.ts';
import { sealedUrlHost } from '../../core/subscription.ts';
import type { AppDeps } from '../deps.ts';
import type { SubscriptionService } from '../../app/subscriptions.ts';
import { appKind } from './app-subscription-kind.tsx';
import { opsgenieKind, pagerdutyKind } from './oncall-subscription-kinds.tsx';

/** Every text value posted under each name, as the form sent it: what a re-rendered form shows again. */
export type FormFields = Record<string, string[]>;

/** What a kind's fields may read to show what it offers: the workspace app's installations, whether mail is set up. */
export type KindFieldDeps = Pick<AppDeps, 'appInstalls'> & InstallationListDeps & { subscriptions: Pick<SubscriptionService, 'emailEnabled'> };

export type KindFieldProps = {
  /** What was posted, or for a saved subscription what `fieldsOf` made of it. */
  fields: FormFields;
  /** Set when editing: a kind whose target cannot change shows it instead of a field. */
  editing: StoredSubscription | null;
  deps: KindFieldDeps;
};

export type SubscriptionFormKind = {
  /** The API's `channel`. */
  channel: string;
  /** The kind's name in the picker and on buttons. */
  label: string;
  /** One line in the picker: what it sends and where. */
  summary: string;
  /** The kind's fields; may read what it offers (installations, groups) from `deps`. */
  fields(props: KindFieldProps): Child | Promise<Child>;
  /** The kind's part of the API's request body: `{ url }`, `{ email }`, ... `editing` is set for a PATCH. */
  requestBody(fields: FormFields, editing: StoredSubscription | null): Record<string, unknown>;
  /** A saved subscription as this kind's posted fields, to fill the edit form. */
  fieldsOf(subscription: StoredSubscription): FormFields;
};

export const first = (fields: FormFields, name: string): string => fields[name]?.[0] ?? '';

function UrlField(props: { fields: FormFields; hint: string }) {
  return (
    <div class="field">
      <label for="as-url">URL</label>
      <input
        type="url"
        id="as-url"
        name="url"
        value={first(props.fields, 'url')}
        required
        maxlength={2048}
        spellcheck={false}
        autocomplete="off"
        aria-describedby="as-url-hint"
      />
      <p id="as-url-hint" class="hint">
        {props.hint}
      </p>
    </div>
  );
}

const webhook: SubscriptionFormKind = {
  channel: 'webhook',
  label: 'Webhook',
  summary: 'Signed JSON events (Standard Webhooks) posted to a URL you run.',
  fields: ({ fields }) => (
    <UrlField fields={fields} hint="An https: URL that answers 2xx. A signing secret is made for it and shown once, after you create it." />
  ),
  requestBody: (fields) => ({ url: first(fields, 'url') }),
  fieldsOf: (s) => ({ url: [s.target] }),
};

const channel: SubscriptionFormKind = {
  channel: 'channel',
  label: 'Team-chat channel',
  summary: 'Readable messages posted to a channel through its incoming-webhook URL.',
  fields: ({ fields }) => <UrlField fields={fields} hint="The channel's incoming-webhook URL, from the workspace's settings." />,
  requestBody: (fields) => ({ url: first(fields, 'url') }),
  fieldsOf: (s) => ({ url: [s.target] }),
};

const email: SubscriptionFormKind = {
  channel: 'email',
  label: 'Email',
  summary: 'An email to one address, or to each member of a directory group, for each change, active at once (no confirmation asked).',
  fields: ({ fields, editing, deps }) => {
    const groupId = editing ? groupIdOfTarget(editing.target) : null;
    // A group subscription keeps its group: it is shown, not edited.
    if (groupId !== null && editing) return <GroupShown groupId={groupId} subscriptionId={editing.id} />;
    return (
      <>
        <div class="field">
          <label for="as-email">Email address</label>
          <input
            type="email"
            id="as-email"
            name="email"
            value={first(fields, 'email')}
            maxlength={254}
            spellcheck={false}
            autocomplete="off"
            aria-describedby="as-email-hint"
          />
          {/* Said only when it is so: the service that sends decides whether mail is set up. */}
          <p id="as-email-hint" class="hint">
            {deps.subscriptions.emailEnabled
              ? 'Mail is set up on this server: messages go out as soon as the subscription is made.'
              : 'Mail is not set up on this server: set SMTP_URL (or MAIL_API_TOKEN) and MAIL_FROM to send email.'}
          </p>
        </div>
        {!editing && <GroupField fields={fields} />}
      </>
    );
  },
  requestBody: (fields, editing) => {
    if (editing && groupIdOfTarget(editing.target) !== null) return {};
    const group = first(fields, 'group').trim();
    return group !== '' && first(fields, 'email').trim() === '' ? { group } : { email: first(fields, 'email') };
  },
  fieldsOf: (s): FormFields => (groupIdOfTarget(s.target) !== null ? {} : { email: [s.target] }),
};

/** A group subscription: the members of a directory group instead of one address. */
function GroupField(props: { fields: FormFields }) {
  return (
    <div class="field">
      <label for="as-group">Or a directory group</label>
      <input
        type="text"
        id="as-group"
        name="group"
        value={first(props.fields, 'group')}
        maxlength={200}
        spellcheck={false}
        autocomplete="off"
        aria-describedby="as-group-hint"
      />
      <p id="as-group-hint" class="hint">
        The group’s exact name or SCIM id in the workspace’s directory (SCIM_TOKEN): each active member with an email gets the alerts, and the list follows the
        directory. Leave the address empty.
      </p>
    </div>
  );
}

function GroupShown(props: { groupId: string; subscriptionId: string }) {
  return (
    <p>
      Sends to the members of the directory group <code>{props.groupId}</code>:{' '}
      <a href={`/admin/directory/${encodeURIComponent(props.subscriptionId)}`}>see its members and audit list</a>.
    </p>
  );
}

/**
 * A URL that authorizes posting (Teams, Discord): sealed once saved and never shown again, so
 * the edit form leaves it empty, and an empty field keeps the saved one.
 */
function SealedUrlField(props: { fields: FormFields; editing: StoredSubscription | null; hint: string }) {
  return (
    <div class="field">
      <label for="as-url">{props.editing ? 'New URL' : 'URL'}</label>
      <input
        type="url"
        id="as-url"
        name="url"
        value={first(props.fields, 'url')}
        required={!props.editing}
        maxlength={2048}
        spellcheck={false}
        autocomplete="off"
        aria-describedby="as-url-hint"
      />
      <p id="as-url-hint" class="hint">
        {props.hint} It is a secret: it is kept sealed and only its host is shown.
        {props.editing ? ` Posting to ${sealedUrlHost(props.editing.target)} now; leave empty to keep it.` : ''}
      </p>
    </div>
  );
}

function sealedUrlKind(kind: { channel: 'teams' | 'discord'; label: string; summary: string; hint: string }): SubscriptionFormKind {
  return {
    channel: kind.channel,
    label: kind.label,
    summary: kind.summary,
    fields: ({ fields, editing }) => <SealedUrlField fields={fields} editing={editing} hint={kind.hint} />,
    requestBody: (fields, editing) => (editing && first(fields, 'url').trim() === '' ? {} : { url: first(fields, 'url') }),
    fieldsOf: () => ({}),
  };
}

const teams = sealedUrlKind({
  channel: 'teams',
  label: 'Microsoft Teams',
  summary: 'An Adaptive Card for each change, posted to a Teams channel through a Workflows webhook.',
  hint: 'The URL of a Teams workflow "When a Teams webhook request is received" that posts the card to a channel.',
});

const discord = sealedUrlKind({
  channel: 'discord',
  label: 'Discord',
  summary: 'One message per incident in a Discord channel, edited in place as the incident moves.',
  hint: "The channel's webhook URL (Channel settings, Integrations, Webhooks).",
});

/** In the picker's order; the first is the form's default. */
export const SUBSCRIPTION_FORM_KINDS: readonly SubscriptionFormKind[] = [webhook, channel, email, appKind, pagerdutyKind, opsgenieKind, teams, discord];

export function formKind(channelName: string | undefined): SubscriptionFormKind | undefined {
  return SUBSCRIPTION_FORM_KINDS.find((kind) => kind.channel === channelName);
}
