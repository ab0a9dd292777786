/**
 * Which subscription an admin means, by its title: every subscription to pick from while there
 * are few enough for one list, else a search of titles and ids that reads a bounded number of
 * subscriptions. The titles are the ones every admin page shows (subscription-titles.ts).
 */
import type { SubscriptionStore } from '../core/ports.ts';
import type { SubscriptionTitle } from '../core/subscription-title.ts';
import { subscriptionTitles, type TitleDeps } from './subscription-titles.ts';

/** Up to this many subscriptions are offered as one list to pick from; past it, a search. */
export const SUBSCRIPTION_CHOICES_MAX = 200;
/** A search of titles reads at most this many subscriptions (in pages of the list's size) and says so. */
export const SUBSCRIPTION_SEARCH_SCAN_MAX = 2_000;
/** A search names at most this many matches. */
export const SUBSCRIPTION_SEARCH_MATCHES_MAX = 20;

export type SubscriptionChoice = { id: string; title: SubscriptionTitle };

export type ChoiceDeps = TitleDeps & { store: Pick<SubscriptionStore, 'listSubscriptions' | 'getSubscription'> };

/** Every subscription with its title, by title; null when there are more than a list can hold. */
export async function subscriptionChoices(deps: ChoiceDeps): Promise<SubscriptionChoice[] | null> {
  const page = await deps.store.listSubscriptions({}, null, SUBSCRIPTION_CHOICES_MAX + 1);
  if (page.length > SUBSCRIPTION_CHOICES_MAX) return null;
  return withTitles(deps, page).then((choices) => choices.sort((a, b) => a.title.title.localeCompare(b.title.title) || a.id.localeCompare(b.id)));
}

export type SubscriptionSearch = {
  /** Those whose id is the text, or whose title or detail line holds it (case aside), at most SUBSCRIPTION_SEARCH_MATCHES_MAX. */
  matches: SubscriptionChoice[];
  /** Whether it stopped before reading every subscription (the scan's or the matches' bound). */
  partial: boolean;
};

/** The subscriptions an admin's text names: its id, or words of its title. */
export async function searchSubscriptions(deps: ChoiceDeps, text: string): Promise<SubscriptionSearch> {
  const exact = await deps.store.getSubscription(text);
  if (exact) return { matches: await withTitles(deps, [exact]), partial: false };
  const needle = text.toLowerCase();
  const matches: SubscriptionChoice[] = [];
  let after: string | null = null;
  for (let read = 0; read < SUBSCRIPTION_SEARCH_SCAN_MAX; ) {
    const page = await deps.store.listSubscriptions({}, after, Math.min(SUBSCRIPTION_CHOICES_MAX, SUBSCRIPTION_SEARCH_SCAN_MAX - read));
    if (page.length === 0) return { matches, partial: false };
    read += page.length;
    after = page.at(-1)!.id;
    for (const choice of await withTitles(deps, page)) {
      const { title, detail } = choice.title;
      if (!`${title}\n${detail ?? ''}\n${choice.id}`.toLowerCase().includes(needle)) continue;
      matches.push(choice);
      if (matches.length >= SUBSCRIPTION_SEARCH_MATCHES_MAX) return { matches, partial: true };
    }
  }
  // Read as many as the bound allows: anything past it is unknown, not absent.
  const more = await deps.store.listSubscriptions({}, after, 1);
  return { matches, partial: more.length > 0 };
}

async function withTitles(deps: ChoiceDeps, subscriptions: Parameters<typeof subscriptionTitles>[1]): Promise<SubscriptionChoice[]> {
  const titles = await subscriptionTitles(deps, subscriptions);
  return subscriptions.map((s) => ({ id: s.id, title: titles.get(s.id)! }));
}
