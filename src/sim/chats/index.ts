/** The chat tools' simulated webhooks in one app: Discord under `/api/webhooks`, Teams under `/workflows`, each with its page (`/discord`, `/teams`). */
import { Hono } from 'hono';
import { createDiscordSim, type DiscordSim } from './discord.ts';
import { createTeamsSim, type TeamsSim } from './teams.ts';

export type ChatSims = { discord: DiscordSim; teams: TeamsSim; fetch(request: Request): Response | Promise<Response>; close(): void };

export function createChatSims(): ChatSims {
  const discord = createDiscordSim();
  const teams = createTeamsSim();
  const app = new Hono();
  app.route('/', discord.app);
  app.route('/', teams.app);
  return { discord, teams, fetch: (request) => app.fetch(request), close() {} };
}

export { createDiscordSim, createTeamsSim };
