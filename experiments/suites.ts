/**
 * Every reproduction suite (one per algorithm, the collectives', and rates, the line-rate sweep
 * across algorithms, docs/algorithms/rates.md), imported for its registration side effect. Each
 * algorithm issue adds one line here: `import './<name>/suite.js';`
 */
import './srcc/suite.js';
import './dcqcn-plus/suite.js';
import './mpcc/suite.js';
import './dolce-rc/suite.js';
import './rcc/suite.js';
import './rates/suite.js';
import './collectives/suite.js';
import './multipath/suite.js';
