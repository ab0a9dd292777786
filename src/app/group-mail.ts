/**
 * Sends one delivery of a group subscription: one mail to each member who receives (active, with
 * a primary email, not muted), in the member's own time zone when the directory has one, each
 * with a one-click unsubscribe that mutes that member for that group only. Each send is recorded
 * under the delivery's key as soon as it ends, so a retry, or a run after a crash, mails
 * only the members not yet recorded: a crash sends again at most the mails in flight, under the
 * same Message-ID. The delivery is done once every member is sent or refused for good.
 */
import type { EmailContext, RenderedEmail } from '../core/email-render.ts';
import type { Clock, Logger, Mailer, StoredSubscription } from '../core/ports.ts';
import type { GroupDirectoryStore, MemberSend } from '../core/ports/scim-directory.ts';
import { memberMessageId, memberSendsKeyOf, type GroupMember } from '../core/scim-group.ts';
import { heldUntil, retry, sent as sentOutcome, type SendOutcome } from '../core/send-outcome.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { canonicalTimeZone } from '../core/subscription.ts';
import { plural } from '../core/plural.ts';
import { forEachAtMost } from './concurrency.ts';
import type { GroupSync } from './group-sync.ts';

/** Mails in flight at once for one group delivery. */
const SEND_CONCURRENCY = 8;
/** No bound on one attempt's mails (Node): still a number, since it is a store read's LIMIT. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export const MEMBER_UNSUBSCRIBE_PATH = '/unsubscribe/member';

export type GroupMailDeps = {
  store: GroupDirectoryStore;
  sync: GroupSync;
  mailer: Mailer;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  /**
   * Mails one attempt sends at most; the rest go out in the next attempts, at once. Unbounded on
   * Node; a Worker bounds it so an invocation stays inside its subrequest limit.
   */
  maxSendsPerAttempt?: number;
};

export type GroupMail = ReturnType<typeof createGroupMail>;

/** What a member's unsubscribe token carries, sealed with SECRET_KEY so it cannot be forged or read. */
type MemberTokenBody = { s: string; u: string };

export function createGroupMail(deps: GroupMailDeps) {
  const { store, clock } = deps;
  const messageIdDomain = new URL(deps.publicUrl).hostname;

  async function unsubscribeUrl(subscriptionId: string, userId: string): Promise<string> {
    const token = await deps.secrets.seal(JSON.stringify({ s: subscriptionId, u: userId } satisfies MemberTokenBody));
    return `${deps.publicUrl}${MEMBER_UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`;
  }

  return {
    /** The subscription and member a token names, or null when it is not one of ours. */
    async openMemberToken(token: string): Promise<{ subscriptionId: string; userId: string } | null> {
      try {
        const body = JSON.parse(await deps.secrets.open(token)) as Partial<MemberTokenBody>;
        return typeof body.s === 'string' && typeof body.u === 'string' ? { subscriptionId: body.s, userId: body.u } : null;
      } catch {
        return null;
      }
    },

    async send(
      subscription: StoredSubscription,
      render: (context: EmailContext) => RenderedEmail,
      options: { deliveryKey: string; alertAtMs?: number | undefined },
    ): Promise<SendOutcome> {
      const sendsKey = await memberSendsKeyOf(options.deliveryKey);
      const begun = await store.hasMemberSends(sendsKey);
      // An alert waits for a fresh list, once: a delivery already under way keeps the list it began
      // with. The wait is a hold, never a sync inside the delivery round; a failed sync leaves the
      // last good list, which is used.
      const readiness = begun ? null : await deps.sync.beforeAlert(subscription.id, options.alertAtMs ?? clock.now());
      if (readiness?.kind === 'wait') return heldUntil(readiness.untilMs, false, "waiting for the group's member list to be synced");
      // No list was ever read (the directory failed every sync so far, or the link is missing):
      // "done" would claim the group was told. Tried again, as a failure, until a sync succeeds.
      const link = readiness ? readiness.link : await store.groupLink(subscription.id);
      if (!link || link.lastOkAt === null) {
        return retry("the group's members have never been read from the directory: nobody could be mailed yet");
      }
      // Only this turn's members are read (and one more, to know whether any are left): a turn of a
      // 15,000-member group on a Worker reads 21 rows, not the group and every send so far.
      const turn = deps.maxSendsPerAttempt ?? UNBOUNDED;
      const waiting = await store.unsentReceivers(subscription.id, sendsKey, Math.min(turn + 1, UNBOUNDED));
      const members = waiting.slice(0, turn);
      const more = waiting.length > members.length;
      const temporary: string[] = [];
      let sent = 0;
      let refused = 0;
      // One small write per member as its send ends (one statement, one row): with a write per
      // batch, a kill re-sent the whole unrecorded batch.
      const record = (send: MemberSend) => store.recordMemberSends(sendsKey, [send], clock.now());
      const sendOne = async (member: GroupMember) => {
        const zone = member.timeZone ? canonicalTimeZone(member.timeZone) : null;
        const link = await unsubscribeUrl(subscription.id, member.id);
        const email = render({
          publicUrl: deps.publicUrl,
          timeZone: zone ?? subscription.timeZone,
          unsubscribeUrl: link,
          // A member has no page to change what the group receives: the footer says who sets it.
          manageUrl: null,
          sanitizeHtml: deps.sanitizeHtml,
        });
        const result = await deps.mailer.send({
          to: member.email!,
          ...email,
          messageId: await memberMessageId(sendsKey, member.id, messageIdDomain),
        });
        if (result.ok) {
          sent += 1;
          await record({ userId: member.id, state: 'sent' });
        } else if (!result.retryable) {
          refused += 1;
          await record({ userId: member.id, state: 'refused' });
          deps.logger.warn("a group member's mail was refused", { subscription: subscription.id, member: member.id, response: result.response });
        } else {
          temporary.push(`${member.id}: ${result.response}`);
        }
      };
      await forEachAtMost(members, SEND_CONCURRENCY, sendOne);
      if (temporary.length === 0 && more) {
        const error = `more members left for the next attempt (at most ${turn} a turn)`;
        // Held until now: due again at once, its attempts not counted and its subscription not
        // failing. Only a delivery's first turn is logged as an attempt: one row says mail went out
        // and more follows, and a group of any size adds one row to its delivery, not one a turn.
        return heldUntil(clock.now(), !begun, error, { excerpt: `${plural(sent, 'member')} sent, ${refused} refused` });
      }
      // The turn that ends the delivery (or fails it for now) reads its sends once, for the totals.
      const recorded = await store.memberSends(sendsKey);
      const refusedInAll = recorded.filter((r) => r.state === 'refused').length;
      const summary = `${plural(sent, 'member')} sent, ${refused} refused; ${recorded.length - refusedInAll} sent and ${refusedInAll} refused in all`;
      if (temporary.length === 0) return sentOutcome(250, summary);
      return retry(`${temporary.length} of ${plural(members.length, 'member')} not sent yet (retried later): ${temporary[0]}`, { excerpt: summary });
    },
  };
}
