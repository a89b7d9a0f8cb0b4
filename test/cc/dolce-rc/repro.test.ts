/**
 * Dolce-RC paper checks of the default tier (docs/algorithms/dolce-rc.md: AC1-AC6, AC10 and the findings
 * F1-F2), exactly as `rocelab reproduce dolce-rc --quick` runs them. AC7, AC8, AC9 and the
 * real-time AC7-RT: test/paper/dolce-rc.test.ts (`npm run test:paper`); AC7-RT also
 * test/realtime/dolce-rc.test.ts.
 */
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('dolce-rc', 'default');
