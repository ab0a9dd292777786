/** `statuswatch manifest`: prints the workspace app's manifest, or checks a manifest file against the spec. */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError, settingError, type Config } from '../config.ts';
import { printable } from '../core/workspace-app/manifest-fields.ts';
import { checkAppManifest, type ManifestViolation } from '../core/workspace-app/manifest-schema.ts';
import { formatManifest, parseManifestText } from '../core/workspace-app/manifest-text.ts';
import { appManifest } from '../core/workspace-app/manifest.ts';
import type { CommandOutput } from './command-output.ts';

/** Far above any real manifest (1,000 redirect URLs of 200 characters are 0.2 MB). */
export const MANIFEST_FILE_MAX_BYTES = 1_000_000;
/** Violations printed; the rest are counted, so a hostile file cannot flood the terminal. */
export const MAX_PRINTED_VIOLATIONS = 100;

/** Exit 0; a missing or unusable PUBLIC_URL is a settings error (exit 2). */
export function printManifest(config: Config, format: 'json' | 'yaml', out: CommandOutput): number {
  if (!config.PUBLIC_URL) {
    throw new ConfigError(
      "PUBLIC_URL is not set: the manifest's URLs are made from it. Fix: set PUBLIC_URL (or --public-url) to the https:// address the workspace reaches this service at",
    );
  }
  const manifest = appManifest({ publicUrl: config.PUBLIC_URL, mcpAuth: config.MCP_AUTH });
  // The schema --check uses decides here too: an http:// PUBLIC_URL makes URLs the spec refuses.
  const [first, ...more] = checkAppManifest(manifest).filter((v) => v.severity === 'error');
  if (first) {
    const others = more.length > 0 ? ` (and ${more.length} more)` : '';
    throw settingError(
      'PUBLIC_URL',
      config.PUBLIC_URL,
      `the manifest made from it breaks the spec: ${first.path}: ${first.message}${others}`,
      'set it to the https:// address the workspace reaches this service at',
    );
  }
  out.stdout(formatManifest(manifest, format));
  return 0;
}

/** What `--check --json` prints: the errors and warnings apart, each list capped, with full counts. */
export type ManifestCheckReport = {
  file: string;
  /** No errors: the vendor would take the manifest (warnings or not). */
  valid: boolean;
  errorCount: number;
  warningCount: number;
  errors: { path: string; message: string }[];
  warnings: { path: string; message: string }[];
};

/**
 * Exit 0 when the file has no errors (warnings or not), 1 when it has any, 2 when it cannot be
 * read. Errors print before warnings, each line marked with which it is.
 */
export function checkManifestFile(path: string, format: 'text' | 'json', out: CommandOutput): number {
  const found = checkAppManifestText(readManifestFile(path));
  const errors = found.filter((v) => v.severity === 'error');
  const warnings = found.filter((v) => v.severity === 'warning');
  if (format === 'json') {
    const report: ManifestCheckReport = {
      file: path,
      valid: errors.length === 0,
      errorCount: errors.length,
      warningCount: warnings.length,
      errors: errors.slice(0, MAX_PRINTED_VIOLATIONS).map(({ path, message }) => ({ path, message })),
      warnings: warnings.slice(0, MAX_PRINTED_VIOLATIONS).map(({ path, message }) => ({ path, message })),
    };
    out.stdout(`${JSON.stringify(report, null, 2)}\n`);
    return errors.length > 0 ? 1 : 0;
  }
  // Paths and messages quote the file's own keys and values: printed inert, one line each.
  const lines = [...errors, ...warnings].map((v) => `${v.severity}: ${printable(v.path)}: ${printable(v.message)}\n`);
  const printed = lines.slice(0, MAX_PRINTED_VIOLATIONS);
  if (lines.length > MAX_PRINTED_VIOLATIONS) printed.push(`... and ${lines.length - MAX_PRINTED_VIOLATIONS} more\n`);
  const counts = `${plural(errors.length, 'error')}, ${plural(warnings.length, 'warning')}`;
  if (errors.length === 0) {
    printed.push(`${path}: a valid manifest${warnings.length > 0 ? `, with ${plural(warnings.length, 'warning')}` : ''}\n`);
    out.stdout(printed.join(''));
    return 0;
  }
  out.stdout(printed.join(''));
  out.stderr(`statuswatch manifest: ${path}: ${counts}\n`);
  return 1;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function checkAppManifestText(source: string): ManifestViolation[] {
  const parsed = parseManifestText(source);
  return parsed.ok ? checkAppManifest(parsed.manifest) : parsed.violations;
}

function readManifestFile(path: string): string {
  const fix = 'give the path of a manifest file, JSON or YAML';
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw settingError('--check', path, 'not a file', fix);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw settingError('--check', path, fileProblem(error), fix);
  }
  if (size > MANIFEST_FILE_MAX_BYTES) {
    throw settingError('--check', path, `${size} bytes, more than a manifest can be (${MANIFEST_FILE_MAX_BYTES})`, fix);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw settingError('--check', path, fileProblem(error), fix);
  }
}

function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? String(error)})`;
}
