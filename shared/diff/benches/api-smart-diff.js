// Times api-smart-diff (npm, the fastest JavaScript peer that finishes on the corpus) on one
// pair of files, the same way the Rust benchmark times Specpress: read + parse both files,
// then compare. Prints one JSON line: {"parse_ms", "compare_ms", "total_ms", "items",
// "max_rss_mb"}. Usage: node api-smart-diff.js <module dir> <previous> <current>
'use strict';
const fs = require('fs');
const path = require('path');
const [moduleDir, previous, current] = process.argv.slice(2);
const { apiCompare } = require(path.resolve(moduleDir));
let yaml = null;
function load(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (/\.ya?ml$/i.test(file)) {
    // js-yaml sits next to api-smart-diff in the same npm prefix when available.
    yaml = yaml || require(path.join(path.resolve(moduleDir), '..', 'js-yaml'));
    return yaml.load(text);
  }
  return JSON.parse(text);
}
const t0 = process.hrtime.bigint();
const before = load(previous);
const after = load(current);
const t1 = process.hrtime.bigint();
const { diffs } = apiCompare(before, after);
const t2 = process.hrtime.bigint();
const ms = (a, b) => Number(b - a) / 1e6;
process.stdout.write(JSON.stringify({
  parse_ms: ms(t0, t1),
  compare_ms: ms(t1, t2),
  total_ms: ms(t0, t2),
  items: diffs.length,
  max_rss_mb: process.resourceUsage().maxRSS / 1024,
}) + '\n');
