/** The manifest core inside workerd: generated, printed as YAML, read back and checked with Workers' APIs only. */
import { describe, expect, it } from 'vitest';
import { checkAppManifest } from '../../src/core/workspace-app/manifest-schema.ts';
import { formatManifest, parseManifestText } from '../../src/core/workspace-app/manifest-text.ts';
import { appManifest } from '../../src/core/workspace-app/manifest.ts';

describe('the app manifest on Workers', () => {
  it('makes, prints and checks the manifest, and reports a broken one with its paths', () => {
    const manifest = appManifest({ publicUrl: 'https://status.example.com' });
    const read = parseManifestText(formatManifest(manifest, 'yaml'));
    expect(read).toEqual({ ok: true, manifest });
    expect(checkAppManifest(manifest)).toEqual([]);
    const broken = parseManifestText(
      'display_information:\n  name: statuswatch\nfeatures:\n  bot_user:\n    display_name: Status Watch\n  slash_commands:\n    - command: status\n      description: Now\n',
    );
    expect(broken.ok && checkAppManifest(broken.manifest).map((v) => `${v.severity} ${v.path}`)).toEqual([
      'error features.slash_commands[0].command',
      'warning features.bot_user.display_name',
    ]);
  });
});
