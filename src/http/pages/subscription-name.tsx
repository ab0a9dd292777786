/**
 * A subscription as every admin page names it: its title (subscription-title.ts) linked to its
 * page, and the ids behind it on a detail line in a monospace face that never wraps a table's
 * column over many lines (cut short with an ellipsis; the whole text in the tooltip and on the
 * subscription's own page).
 */
import type { SubscriptionTitle } from '../../core/subscription-title.ts';

export function SubscriptionName(props: { id: string; title: SubscriptionTitle; link?: boolean }) {
  const { title, detail } = props.title;
  return (
    <>
      {props.link === false ? (
        <span class="subscription-title">{title}</span>
      ) : (
        <a class="subscription-title" href={`/admin/subscriptions/${encodeURIComponent(props.id)}`}>
          {title}
        </a>
      )}
      {detail !== null && (
        <span class="id-detail" title={detail}>
          {detail}
        </span>
      )}
    </>
  );
}
