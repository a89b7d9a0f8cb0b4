/**
 * Every algorithm's reproduction suite, imported for its registration side effect. Each
 * algorithm issue adds one line here: `import '../cc/<name>/reproduce.js';`
 */
import '../cc/srcc/reproduce.js';
import '../cc/dcqcn-plus/reproduce.js';
