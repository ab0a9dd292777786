/** One of two files that leave state behind for the other to not find (probe.ts). */
import { describeFileScope } from './probe.ts';

describeFileScope('a');
