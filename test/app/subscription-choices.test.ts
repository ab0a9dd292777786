/**
 * Picking a subscription by its title, over a real SQLite archive: every subscription while they
 * fit one list, none past it; a search of titles reads no more than its bound and says when it
 * stopped short, and names no more matches than its bound.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SUBSCRIPTION_CHOICES_MAX,
  SUBSCRIPTION_SEARCH_MATCHES_MAX,
  SUBSCRIPTION_SEARCH_SCAN_MAX,
  searchSubscriptions,
  subscriptionChoices,
} from '../../src/app/subscription-choices.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

/** `count` webhooks, ids in order, each to its own team's URL. */
async function webhooks(archive: TempArchive, count: number, name = (i: number) => `team-${i}`): Promise<void> {
  for (let i = 0; i < count; i++) {
    await archive.store.createSubscription(storedSubscription(`sub_${String(i).padStart(5, '0')}`, { target: `https://hooks.example.test/${name(i)}` }));
  }
}

describe('picking a subscription by its title', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it(`offers every subscription by title up to ${SUBSCRIPTION_CHOICES_MAX}, and none past it`, async () => {
    await webhooks(archive, SUBSCRIPTION_CHOICES_MAX, (i) => `team-${SUBSCRIPTION_CHOICES_MAX - i}`);
    const choices = await subscriptionChoices(archive);
    expect(choices).toHaveLength(SUBSCRIPTION_CHOICES_MAX);
    expect(choices![0]!.title.title).toBe('hooks.example.test/team-1');
    await archive.store.createSubscription(storedSubscription('sub_one_more'));
    expect(await subscriptionChoices(archive)).toBeNull();
  });

  it(`reads at most ${SUBSCRIPTION_SEARCH_SCAN_MAX} subscriptions and says when it stopped short`, async () => {
    // The one that would match lies past the bound: unknown, not absent.
    await webhooks(archive, SUBSCRIPTION_SEARCH_SCAN_MAX + 1, (i) => (i === SUBSCRIPTION_SEARCH_SCAN_MAX ? 'far-away' : `team-${i}`));
    expect(await searchSubscriptions(archive, 'far-away')).toEqual({ matches: [], partial: true });
    // Its id still finds it at once.
    const byId = await searchSubscriptions(archive, `sub_${String(SUBSCRIPTION_SEARCH_SCAN_MAX).padStart(5, '0')}`);
    expect(byId.matches.map((m) => m.title.title)).toEqual(['hooks.example.test/far-away']);
    expect(await searchSubscriptions(archive, 'team-1999')).toMatchObject({ matches: [{ id: 'sub_01999' }], partial: true });
  });

  it(`names at most ${SUBSCRIPTION_SEARCH_MATCHES_MAX} matches, and says there may be more`, async () => {
    await webhooks(archive, SUBSCRIPTION_SEARCH_MATCHES_MAX + 5);
    const found = await searchSubscriptions(archive, 'TEAM-');
    expect(found.matches).toHaveLength(SUBSCRIPTION_SEARCH_MATCHES_MAX);
    expect(found.partial).toBe(true);
    expect(await searchSubscriptions(archive, 'team-3')).toEqual({ matches: [expect.objectContaining({ id: 'sub_00003' })], partial: false });
  });
});
