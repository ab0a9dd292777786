/** What carries a notification out: mail and webhooks. */

/** A rendered email addressed to one recipient: what a Mailer sends. */
export type OutgoingMail = {
  /** One bare address (core/email-address.ts); a Mailer refuses anything else. */
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /**
   * The Message-ID, `<id@domain>`: set, every send of this mail carries the same one, so a mail
   * sent again after a crash is one a receiving client can drop. Unset, the mailer makes one up.
   */
  messageId?: string;
};

/**
 * How a send ended. `recipient_rejected` is permanent for that address (the caller suppresses
 * it); `message_rejected` is permanent for this message only (a 5xx at MAIL FROM or DATA);
 * `temporary` (4xx) and `connection` (refused, timed out, TLS or login failed) may succeed later.
 */
export type MailResult =
  | { ok: true; response: string; messageId: string }
  | {
      ok: false;
      kind: 'temporary' | 'recipient_rejected' | 'message_rejected' | 'connection';
      code: number | null;
      response: string;
      retryable: boolean;
    };

export interface Mailer {
  send(mail: OutgoingMail): Promise<MailResult>;
  close(): void;
  /** How many mails it sends at once, when it queues the rest itself (a pool of SMTP connections); absent: no bound of its own. */
  readonly sendsAtOnce?: number;
}

export type WebhookRequest = {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** POST unless said: a chat's webhook edits its message in place with PATCH. */
  method?: 'POST' | 'PATCH';
  /** How much of the answer to keep as `responseExcerpt` (capped by the sender's response bound): a caller that reads the answer (a message id) needs all of it. */
  excerptBytes?: number;
};

/** One webhook delivery attempt as the log keeps it. */
export type WebhookAttempt = {
  /** A 2xx answer, and only that. */
  ok: boolean;
  /** Null when no answer came (refused target, network failure, timeout before the headers). */
  status: number | null;
  durationMs: number;
  /** The first KB of the answer, as text. */
  responseExcerpt: string;
  /** From Retry-After (delay in seconds, or an HTTP-date), whatever the status. */
  retryAfterMs: number | null;
  error: string | null;
  /** The receiver answered 410 Gone: the subscription should be paused. */
  gone: boolean;
  /** A failure that retrying cannot fix: a refused target, a 410, an invalid URL. */
  permanent: boolean;
};

export interface WebhookSender {
  /** Never throws for network or target problems: they come back as an attempt with `error`. */
  send(request: WebhookRequest): Promise<WebhookAttempt>;
  /** Closes pooled connections; the sender is unusable afterwards. */
  close(): Promise<void>;
}
