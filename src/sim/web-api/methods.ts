/** The Web API methods the simulator speaks: the ones the workspace app uses. */
import { appsUninstall, authRevoke, authTest } from './auth-methods.ts';
import { chatPostMessage, chatUpdate } from './chat-methods.ts';
import { conversationsHistory, conversationsList, conversationsReplies } from './conversations-methods.ts';
import type { MethodSpec } from './method-types.ts';
import { oauthV2Access, oauthV2Exchange } from './oauth-methods.ts';

export const METHODS: Readonly<Record<string, MethodSpec>> = {
  'oauth.v2.access': oauthV2Access,
  'oauth.v2.exchange': oauthV2Exchange,
  'auth.test': authTest,
  'auth.revoke': authRevoke,
  'apps.uninstall': appsUninstall,
  'chat.postMessage': chatPostMessage,
  'chat.update': chatUpdate,
  'conversations.list': conversationsList,
  'conversations.history': conversationsHistory,
  'conversations.replies': conversationsReplies,
};

export const METHOD_NAMES = Object.keys(METHODS);

export const isMethodName = (name: string): boolean => Object.hasOwn(METHODS, name);
