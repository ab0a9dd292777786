/** Shields-style status badges (`/badge.svg`): label on grey, the state on its colour, sized to the text. */
import { escapeUTF8 } from 'entities';
import { xmlChars } from './feed-items.ts';
import { oneLine, truncate } from './notification-message.ts';
import type { WidgetState } from './widget-state.ts';

export type Badge = { label: string; message: string; color: string };

/**
 * Shields' palette. Each is dark enough that shields' own contrast rule picks white text, so the
 * text colour is fixed.
 */
const COLORS = { brightgreen: '#4c1', blue: '#007ec6', yellow: '#dfb317', orange: '#fe7d37', red: '#e05d44', lightgrey: '#9f9f9f' } as const;

const STATE_BADGES: Record<WidgetState, { message: string; color: string }> = {
  ok: { message: 'operational', color: COLORS.brightgreen },
  maintenance: { message: 'maintenance', color: COLORS.blue },
  notice: { message: 'notice', color: COLORS.yellow },
  incident: { message: 'incident', color: COLORS.orange },
  outage: { message: 'outage', color: COLORS.red },
  unknown: { message: 'unknown service', color: COLORS.lightgrey },
};

/** A label this long is cut: the label comes from the query string, so anyone can make it. */
export const BADGE_LABEL_MAX_CHARS = 40;

/**
 * Stale data gives no state at all: a green "operational" from a feed we cannot read would be a
 * claim we cannot back. A name never seen is then just as unknown as the rest.
 */
export function badgeFor(label: string, state: WidgetState, stale: boolean, readsFailing = false): Badge {
  const { message, color } = stale ? { message: 'unknown', color: COLORS.lightgrey } : STATE_BADGES[state];
  // The latest reads failed: the state is what the last good read said, and the badge says so.
  return { label, message: readsFailing && !stale ? `${message} (as of last read)` : message, color };
}

/**
 * Advance widths of Verdana at 11px, in tenths of a pixel, for ' ' (32) to '~' (126): the font
 * badges are drawn in, measured as shields measures it.
 */
// prettier-ignore
const ASCII_WIDTHS = [
  39,
  43,
  50,
  90,
  70,
  120,
  80,
  30,
  50,
  50,
  70,
  90,
  40,
  50,
  40,
  50, // space ! " # $ % & ' ( ) * + , - . /
  70,
  70,
  70,
  70,
  70,
  70,
  70,
  70,
  70,
  70,
  50,
  50,
  90,
  90,
  90,
  60, // 0-9 : ; < = > ?
  116,
  75,
  75,
  77,
  85,
  70,
  63,
  85,
  83,
  46,
  50,
  76,
  61,
  93,
  82,
  87, // @ A-O
  66,
  87,
  76,
  75,
  68,
  81,
  75,
  110,
  75,
  68,
  75,
  50,
  50,
  50,
  90,
  70, // P-Z [ \ ] ^ _
  70,
  66,
  69,
  57,
  69,
  66,
  39,
  69,
  70,
  30,
  38,
  65,
  30,
  110,
  70,
  67, // ` a-o
  69,
  69,
  47,
  57,
  43,
  70,
  65,
  90,
  65,
  65,
  58,
  70,
  50,
  70,
  90, // p-z { | } ~
];

/** Outside ASCII: combining marks take no room, CJK and emoji a full em, anything else an average capital. */
function charWidthTenths(codePoint: number): number {
  if (codePoint >= 32 && codePoint <= 126) return ASCII_WIDTHS[codePoint - 32]!;
  if (codePoint < 32 || (codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f)) return 0;
  return codePoint >= 0x2e80 ? 110 : 75;
}

/** Width of one line of text in Verdana 11px, whole pixels rounded up. */
export function textWidthPx(text: string): number {
  let tenths = 0;
  for (const char of text) tenths += charWidthTenths(char.codePointAt(0)!);
  return Math.ceil(tenths / 10);
}

/** Padding each side of a text, as shields has it. */
const PADDING_PX = 5;

/**
 * Text is drawn at ten times the size and scaled by 0.1 (as shields does) so positions keep a
 * tenth of a pixel; `textLength` makes a browser whose fallback font is wider than Verdana squeeze
 * the text into the measured width instead of overflowing the box.
 */
export function renderBadge(badge: Badge): string {
  const label = truncate(oneLine(xmlChars(badge.label)), BADGE_LABEL_MAX_CHARS) || 'status';
  const message = oneLine(xmlChars(badge.message));
  const labelText = textWidthPx(label);
  const messageText = textWidthPx(message);
  const left = labelText + 2 * PADDING_PX;
  const right = messageText + 2 * PADDING_PX;
  const width = left + right;
  const text = (content: string, centerX: number, textWidth: number) => {
    const x = centerX * 10;
    const length = textWidth * 10;
    return (
      `<text aria-hidden="true" x="${x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${length}">${xml(content)}</text>` +
      `<text x="${x}" y="140" transform="scale(.1)" fill="#fff" textLength="${length}">${xml(content)}</text>`
    );
  };
  const name = xml(`${label}: ${message}`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${name}">` +
    `<title>${name}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${xml(badge.color)}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">` +
    text(label, left / 2, labelText) +
    text(message, left + right / 2, messageText) +
    `</g></svg>`
  );
}

/** For text and attribute values alike: `& < > " '` as entities. */
const xml = (text: string) => escapeUTF8(text);
