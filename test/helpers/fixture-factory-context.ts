/** The name under which the workers project's globalSetup provides the fixture factory's URL (fixture-factory.ts). */
export const FIXTURE_FACTORY_URL = 'fixtureFactoryUrl';

declare module 'vitest' {
  export interface ProvidedContext {
    [FIXTURE_FACTORY_URL]: string;
  }
}
