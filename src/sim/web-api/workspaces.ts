/** Workspaces (teams) of the simulated vendor and the app's installation in each: who the bot is, its scopes, whether it is installed. */
import { newObjectId } from './ids.ts';
import { emptyMisuse, type MisuseRecord } from './token-misuse.ts';

/** The scopes an installation gets unless a test says otherwise: all the methods the app uses. */
export const DEFAULT_BOT_SCOPES = ['chat:write', 'channels:read', 'channels:history', 'groups:read', 'groups:history'] as const;

/** Workspaces kept at once; the control API refuses more. */
export const WORKSPACES_MAX = 200;

export type InstallStatus = 'not_installed' | 'installed' | 'uninstalled';

export type Workspace = {
  teamId: string;
  name: string;
  enterprise: { id: string; name: string } | null;
  botUserId: string;
  botId: string;
  botName: string;
  /** The person who installs the app (authed_user of oauth.v2.access). */
  installerUserId: string;
  status: InstallStatus;
  scopes: string[];
  installedAtMs: number | null;
  misuse: MisuseRecord;
  /** Successful token operations, so a test can see rotation happened (and how often). */
  stats: { exchanges: number; refreshes: number; codeInstalls: number };
};

export type NewWorkspace = {
  name: string;
  teamId?: string;
  enterprise?: { id: string; name: string } | null;
  botName?: string;
  scopes?: readonly string[];
  installed: boolean;
};

export type WorkspaceBook = {
  /** Null when WORKSPACES_MAX are held or the team id is taken. */
  add(fields: NewWorkspace, nowMs: number): Workspace | null;
  get(teamId: string): Workspace | undefined;
  list(): Workspace[];
  readonly size: number;
};

export function createWorkspaceBook(): WorkspaceBook {
  const workspaces = new Map<string, Workspace>();
  return {
    add(fields, nowMs) {
      const teamId = fields.teamId ?? newObjectId('T');
      if (workspaces.size >= WORKSPACES_MAX || workspaces.has(teamId)) return null;
      const workspace: Workspace = {
        teamId,
        name: fields.name,
        enterprise: fields.enterprise ?? null,
        botUserId: newObjectId('U'),
        botId: newObjectId('B'),
        botName: fields.botName ?? 'statuswatch',
        installerUserId: newObjectId('U'),
        status: fields.installed ? 'installed' : 'not_installed',
        scopes: [...(fields.scopes ?? DEFAULT_BOT_SCOPES)],
        installedAtMs: fields.installed ? nowMs : null,
        misuse: emptyMisuse(),
        stats: { exchanges: 0, refreshes: 0, codeInstalls: 0 },
      };
      workspaces.set(teamId, workspace);
      return workspace;
    },
    get: (teamId) => workspaces.get(teamId),
    list: () => [...workspaces.values()],
    get size() {
      return workspaces.size;
    },
  };
}
