/**
 * Every algorithm's reproduction suite, imported for its registration side effect. Each
 * algorithm issue adds one line here: `import './<name>/suite.js';`. Suites across algorithms
 * too: rates (the line-rate sweep, docs/algorithms/rates.md).
 */
import './srcc/suite.js';
import './dcqcn-plus/suite.js';
import './mpcc/suite.js';
import './dolce-rc/suite.js';
import './rcc/suite.js';
import './rates/suite.js';
