/** A subscription's title from what is known of its target: names when stored, and when not, the id said to be all that is known. */
import { describe, expect, it } from 'vitest';
import { NO_NAMES, subscriptionTitle, type TargetNames } from '../../src/core/subscription-title.ts';

const group = (over: Partial<{ groupName: string; memberCount: number; synced: boolean; groupDeleted: boolean }> = {}): TargetNames => ({
  groups: new Map([['sub_g', { groupName: 'Support', memberCount: 10, synced: true, groupDeleted: false, ...over }]]),
  apps: new Map(),
});

describe('subscriptionTitle', () => {
  it('names a group by its name and members, and says what it does not know', () => {
    const s = { id: 'sub_g', channel: 'email' as const, target: 'scim-group:S0002' };
    expect(subscriptionTitle(s, group())).toEqual({ title: 'Support (10 members)', detail: 'directory group S0002' });
    expect(subscriptionTitle(s, group({ memberCount: 1 })).title).toBe('Support (1 member)');
    expect(subscriptionTitle(s, group({ synced: false, memberCount: 0 })).title).toBe('Support (members not read yet)');
    expect(subscriptionTitle(s, group({ groupDeleted: true })).title).toBe('Support (deleted in the directory)');
    expect(subscriptionTitle(s, NO_NAMES).title).toBe('Group S0002 (name unknown)');
  });

  it('names an app subscription by its channel and workspace, and an unknown name as unknown beside its id', () => {
    const s = { id: 'sub_a', channel: 'app' as const, target: 'inst-1/C0STATUS' };
    const names = (teamName: string | null, conversationName: string | null): TargetNames => ({
      groups: new Map(),
      apps: new Map([['sub_a', { teamId: 'T0DEMO', teamName, conversationName }]]),
    });
    expect(subscriptionTitle(s, names('Demo workspace', 'status-updates'))).toEqual({
      title: '#status-updates (Demo workspace)',
      detail: 'workspace T0DEMO · conversation C0STATUS · installation inst-1',
    });
    expect(subscriptionTitle(s, names(null, null)).title).toBe('Conversation C0STATUS, name unknown (workspace T0DEMO, name unknown)');
    expect(subscriptionTitle(s, NO_NAMES)).toEqual({
      title: 'Conversation C0STATUS, name unknown (installation no longer kept)',
      detail: 'conversation C0STATUS · installation inst-1',
    });
  });

  it('shortens a receiver URL to its host and path, the whole URL on the detail line', () => {
    const url = `https://hooks.example.test/services/T0/B0/${'x'.repeat(80)}`;
    const title = subscriptionTitle({ id: 'sub_w', channel: 'webhook', target: url }, NO_NAMES);
    expect(title.title).toBe(`hooks.example.test/services/T0/B0/${'x'.repeat(25)}…`);
    expect(title.title).toHaveLength(60);
    expect(title.detail).toBe(url);
    expect(subscriptionTitle({ id: 'sub_e', channel: 'email', target: 'ops@example.test' }, NO_NAMES)).toEqual({ title: 'ops@example.test', detail: null });
  });

  it('names an on-call tool and a Teams or Discord webhook without their secrets: the tool, and only the host of a URL', () => {
    expect(subscriptionTitle({ id: 'sub_p', channel: 'pagerduty', target: 'PagerDuty Events API v2' }, NO_NAMES)).toEqual({
      title: 'PagerDuty Events API v2',
      detail: null,
    });
    expect(subscriptionTitle({ id: 'sub_o', channel: 'opsgenie', target: 'Opsgenie EU' }, NO_NAMES)).toEqual({ title: 'Opsgenie EU', detail: null });
    // A sealed URL's target is its host and a fingerprint of the URL: the fingerprint is no name.
    expect(subscriptionTitle({ id: 'sub_t', channel: 'teams', target: 'prod.westus.logic.azure.com#0123456789abcdef' }, NO_NAMES)).toEqual({
      title: 'Microsoft Teams webhook on prod.westus.logic.azure.com',
      detail: null,
    });
    expect(subscriptionTitle({ id: 'sub_d', channel: 'discord', target: 'discord.com#fedcba9876543210' }, NO_NAMES).title).toBe(
      'Discord webhook on discord.com',
    );
  });
});
