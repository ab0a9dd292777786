/** The note sanitiser on Node; the same cases run inside workerd (test/workers/html-sanitizer.test.ts). */
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { htmlSanitizerContract } from '../contracts/html-sanitizer.contract.ts';

htmlSanitizerContract('Node', sanitizeNoteHtml);
