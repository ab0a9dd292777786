/** The note sanitiser inside workerd: the same cases as on Node, against what the Workers form uses. */
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { htmlSanitizerContract } from '../contracts/html-sanitizer.contract.ts';

htmlSanitizerContract('workerd', sanitizeNoteHtml);
