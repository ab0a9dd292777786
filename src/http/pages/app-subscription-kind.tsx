/**
 * The `app` kind of the admin's subscription form: one list of the conversations the
 * app can post to, of every active installation, read with conversations.list through the same
 * paginated use case as `GET /api/app/installations/:id/conversations`, walked to its end.
 */
import { InstallError } from '../../app/workspace-app/installs.ts';
import { CONVERSATION_SEARCH_PAGES_MAX, walkConversations } from '../../app/workspace-app/subscription-targets.ts';
import { CONVERSATIONS_PAGE_MAX } from '../../app/workspace-app/installs.ts';
import { activeInstallations } from '../../app/workspace-app/installation-lists.ts';
import type { InstallationRecord, VendorConversation } from '../../core/ports.ts';
import { appTarget, parseAppTarget } from '../../core/subscription.ts';
import type { FormFields, KindFieldDeps, KindFieldProps, SubscriptionFormKind } from './subscription-kinds.tsx';

/** Installations offered at once, each walked for its conversations; a workspace app is installed in a handful at most. */
const INSTALLATIONS_SHOWN_MAX = 20;

type Offer = { installation: InstallationRecord; conversations: VendorConversation[]; problem: string | null };

/** The conversations of one installation the app can post to: member, not archived. */
async function postable(deps: KindFieldDeps, installation: InstallationRecord): Promise<Offer> {
  const installs = deps.appInstalls;
  if (!installs) return { installation, conversations: [], problem: 'the app is not configured' };
  const found: VendorConversation[] = [];
  try {
    const walk = await walkConversations(installs, installation.id, (page) => {
      found.push(...page.filter((c) => c.isMember && !c.isArchived));
      return false;
    });
    if (walk === 'ended') return { installation, conversations: found, problem: null };
    return {
      installation,
      conversations: found,
      problem: `more than ${CONVERSATION_SEARCH_PAGES_MAX * CONVERSATIONS_PAGE_MAX} conversations: the rest are not listed`,
    };
  } catch (error) {
    if (error instanceof InstallError) return { installation, conversations: found, problem: error.message };
    throw error;
  }
}

async function AppFields({ fields, editing, deps }: KindFieldProps) {
  if (editing) {
    const target = parseAppTarget(editing.target);
    return (
      <p class="hint">
        Posts to conversation <code>{target?.conversationId ?? editing.target}</code> of installation <code>{target?.installationId ?? '?'}</code>. To post
        elsewhere, create another subscription.
      </p>
    );
  }
  const installations = (await activeInstallations(deps)).slice(0, INSTALLATIONS_SHOWN_MAX);
  if (installations.length === 0) {
    return (
      <p class="hint">
        The app is not installed in any workspace yet: <a href="/admin/app">install it</a> first.
      </p>
    );
  }
  const offers = await Promise.all(installations.map((i) => postable(deps, i)));
  const chosen = fields.target?.[0] ?? '';
  return (
    <div class="field">
      <label for="as-target">Conversation</label>
      <select id="as-target" name="target" required aria-describedby="as-target-hint">
        <option value="">Choose a channel</option>
        {offers.map((offer) => (
          <optgroup label={`Workspace ${offer.installation.teamId}`}>
            {offer.conversations.map((c) => {
              const value = appTarget(offer.installation.id, c.id);
              return (
                <option value={value} selected={value === chosen}>
                  {`${c.isPrivate ? '🔒' : '#'}${c.name || c.id}`}
                </option>
              );
            })}
          </optgroup>
        ))}
      </select>
      <p id="as-target-hint" class="hint">
        Channels the app is a member of. Invite it to a channel (/invite) to see that channel here.
        {offers
          .filter((o) => o.problem !== null)
          .map((o) => ` Workspace ${o.installation.teamId}: ${o.problem}.`)
          .join('')}
      </p>
    </div>
  );
}

export const appKind: SubscriptionFormKind = {
  channel: 'app',
  label: 'Workspace app',
  summary: 'One message per incident, posted by the app and edited as the incident moves, its changes in the thread.',
  fields: (props) => AppFields(props),
  requestBody(fields: FormFields, editing) {
    // Where it posts cannot change; only the shared fields (filters, zone) are sent on an edit.
    if (editing) return {};
    const target = parseAppTarget(fields.target?.[0] ?? '');
    return { installation: target?.installationId ?? '', conversation: target?.conversationId ?? '' };
  },
  fieldsOf: (s) => ({ target: [s.target] }),
};
