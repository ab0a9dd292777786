/** Which service names are known, and how an unknown one is explained: plain data, no server. */
import { describe, expect, it } from 'vitest';
import { DOCUMENTED_SERVICES, mergeKnownServices, suggestService, unknownServiceDetail, unknownServices } from '../../src/core/known-services.ts';

describe('known services', () => {
  it("puts the vendor's documented names first, then the archive's other names, each once", () => {
    const known = mergeKnownServices(['Files', 'Legacy Uploads', 'Calls']);
    expect(known.slice(0, DOCUMENTED_SERVICES.length)).toEqual(DOCUMENTED_SERVICES);
    expect(known.slice(DOCUMENTED_SERVICES.length)).toEqual(['Legacy Uploads']);
  });

  it('finds the unknown names exactly and case-sensitively, each once, in the order asked', () => {
    const known = mergeKnownServices([]);
    expect(unknownServices(['Nope', 'Files', 'files', 'Nope'], known)).toEqual(['Nope', 'files']);
    expect(unknownServices(undefined, known)).toEqual([]);
  });

  it('suggests the name a near miss differs from only in case or spaces', () => {
    const known = mergeKnownServices([]);
    expect(suggestService(' login/sso', known)).toBe('Login/SSO');
    expect(suggestService('Filez', known)).toBeNull();
  });

  it('says what came, what it may have meant, and what is known, with at most five names quoted', () => {
    const known = ['Files', 'Search'];
    expect(unknownServiceDetail('service', ['files'], known)).toBe(
      'service: unknown service "files" (did you mean Files?); names are exact and case-sensitive, known: Files, Search',
    );
    const many = unknownServiceDetail('service', ['a', 'b', 'c', 'd', 'e', 'f', 'g'], known);
    expect(many).toContain('"e" and 2 more;');
    expect(many).not.toContain('"f"');
  });
});
