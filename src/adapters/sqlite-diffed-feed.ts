/**
 * The kept DiffedFeed (ports) as the meta row holds it: JSON whose first member is the main feed's
 * generation, spliced in by the statement that keeps it (sqlite-poll-apply.ts). A changed poll
 * reads back the row its own last write left, about 6 KB of digests for a 120-incident feed:
 * parsing that again cost about 30 µs a poll, so the text this store last wrote is recognised and
 * answered with the object it was made from.
 */
import type { DiffedFeed } from '../core/ports.ts';

export type DiffedFeedCodec = {
  /** The JSON members after the spliced generation (`,"atMs":...}`), remembered as this store's last write. */
  members(feed: Omit<DiffedFeed, 'generation'>): string;
  /** The row's DiffedFeed; one that does not read as one (a hand-edited row) is as good as none. */
  parse(text: string): DiffedFeed | null;
};

/** What KEEP_DIFFED_FEED puts before the members: the generation as an integer. */
const GENERATION_HEAD = /^\{"generation":(\d{1,15})$/;

/**
 * One codec per store. It remembers one write, so it holds at most one feed's digests; an answer
 * depends only on the text read (the remembered members are that object's own JSON), so a write
 * that rolled back, or a row another process wrote, is parsed as any other text. The objects it
 * answers are shared with the write that made them: their readers do not change them.
 */
export function createDiffedFeedCodec(): DiffedFeedCodec {
  let last: { members: string; feed: Omit<DiffedFeed, 'generation'> } | null = null;
  return {
    members(feed) {
      const members = diffedFeedMembers(feed);
      last = { members, feed };
      return members;
    },
    parse(text) {
      if (last && text.length > last.members.length && text.endsWith(last.members)) {
        const head = GENERATION_HEAD.exec(text.slice(0, text.length - last.members.length));
        if (head) return { ...stripGeneration(last.feed), generation: Number(head[1]) };
      }
      return parseDiffedFeed(text);
    },
  };
}

function stripGeneration(feed: Omit<DiffedFeed, 'generation'>): Omit<DiffedFeed, 'generation'> {
  const { generation: _ignored, ...rest } = feed as DiffedFeed;
  return rest;
}

/** A DiffedFeed's JSON members after the generation KEEP_DIFFED_FEED puts first: `,"atMs":...}`. */
export function diffedFeedMembers(diffedFeed: Omit<DiffedFeed, 'generation'>): string {
  // An object that still carries a generation must not repeat the key: the spliced one is the archive's.
  const members = JSON.stringify(stripGeneration(diffedFeed)).slice(1);
  return members === '}' ? members : `,${members}`;
}

/** The kept DiffedFeed; one that does not read as one (a hand-edited row) is as good as none. */
export function parseDiffedFeed(text: string): DiffedFeed | null {
  try {
    const value = JSON.parse(text) as DiffedFeed;
    if (typeof value.atMs !== 'number' || typeof value.generation !== 'number' || !Array.isArray(value.sources)) return null;
    // Digests that do not read as a map of them are as good as none: every incident is diffed.
    const { incidents } = value;
    if (incidents !== undefined && (typeof incidents !== 'object' || incidents === null || Array.isArray(incidents))) delete value.incidents;
    // A refresh time that is not one is unknown: the next diff refreshes last_seen_at.
    if (value.seenRefreshedAtMs !== undefined && typeof value.seenRefreshedAtMs !== 'number') delete value.seenRefreshedAtMs;
    return value;
  } catch {
    return null;
  }
}
