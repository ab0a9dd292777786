/** globalSetup of the workers project (runs in Node): the fixture factory for the whole run, its URL provided to the tests in workerd. */
import type { TestProject } from 'vitest/node';
import { FIXTURE_FACTORY_URL } from './fixture-factory-context.ts';
import { startFixtureFactory } from './fixture-factory.ts';

export default async function setup(project: TestProject) {
  const factory = await startFixtureFactory();
  project.provide(FIXTURE_FACTORY_URL, factory.url);
  return () => factory.close();
}
