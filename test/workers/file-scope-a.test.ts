/** One of two files that leave state behind for the other to not find (harness/file-scope-probe.ts). */
import { describeFileScope } from './harness/file-scope-probe.ts';

describeFileScope('a');
