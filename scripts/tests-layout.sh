#!/usr/bin/env bash
# Puts the test fixtures in one folder and the proptest regressions in
# another, and rewrites every path that names them. Safe to run again
# (after merging a branch that added fixtures in the old places): it moves
# what is still outside and rewrites what still names the old paths.
#
#   tests/NAME/ (every folder but common/, fixtures/ and the test
#       binaries' folders, those with a main.rs) -> tests/fixtures/NAME/
#   tests/conformance_spirv.passing -> tests/fixtures/conformance_spirv.passing
#   tests/NAME.proptest-regressions, tests/differential/NAME.proptest-regressions
#       -> proptest-regressions/tests/NAME.txt, each test's proptest config
#          naming its file (common::regressions)
#
# Paths are rewritten in every file git tracks except the regressions and
# binary files. Run from anywhere in the repository; commit the result.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

mkdir -p tests/fixtures
for d in tests/*/; do
  name=$(basename "$d")
  case "$name" in common | fixtures) continue ;; esac
  [ -e "$d/main.rs" ] && continue
  if [ -e "tests/fixtures/$name" ]; then
    echo "tests/fixtures/$name exists already: merge tests/$name into it by hand" >&2
    exit 1
  fi
  git mv "tests/$name" "tests/fixtures/$name"
done
for f in tests/*.passing; do
  [ -e "$f" ] && git mv "$f" tests/fixtures/
done

# The fixture names, for the rewrite: every entry of tests/fixtures.
names=$(ls tests/fixtures | sed 's/[.]/\\./g' | paste -sd'|')

mkdir -p proptest-regressions/tests
for f in tests/*.proptest-regressions tests/differential/*.proptest-regressions; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .proptest-regressions)
  dir=$(basename "$(dirname "$f")")
  [ "$dir" = tests ] && to="proptest-regressions/tests/$name.txt" \
    || to="proptest-regressions/tests/$dir-$name.txt"
  git mv "$f" "$to"
done

# Paths: `tests/NAME` -> `tests/fixtures/NAME` wherever a tracked text file
# names a fixture (tests, docs, README, .ci/run, scripts, benches, src).
git ls-files -z | grep -zv '^proptest-regressions/\|^scripts/tests-layout\.sh$' | while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  grep -Iq . "$f" 2>/dev/null || continue
  perl -0pi -e "s#(?<![\\w-])tests/($names)(?![\\w-]|\\.[A-Za-z])#tests/fixtures/\$1#g" "$f"
done

# Fixtures a test includes by a path relative to its own file (each test
# file is in a binary's folder: tests/BINARY/NAME.rs).
for f in tests/*/*.rs; do
  case "$f" in tests/fixtures/* | tests/common/*) continue ;; esac
  perl -0pi -e "s#include_(str|bytes)!\\(\"($names)#include_\$1!(\"../fixtures/\$2#g" "$f"
done

# Code that lists the fixture folders by reading tests/ itself.
perl -0pi -e 's#std::fs::read_dir\(root\.join\("tests"\)\)#std::fs::read_dir(root.join("tests/fixtures"))#g' \
  tests/common/mod.rs tests/frontends/fuzz_parsers.rs
perl -0pi -e 's#\.expect\("tests/"\)#.expect("tests/fixtures/")#g' tests/frontends/fuzz_parsers.rs
perl -0pi -e 's#Path::new\(env!\("CARGO_MANIFEST_DIR"\)\)\.join\("tests"\);#Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");#g' \
  src/engine/tests.rs
perl -0pi -e 's#(?<![\w/-])tests/alloy\*#tests/fixtures/alloy*#g' tests/frontends/fuzz_parsers.rs
perl -0pi -e 's#os\.path\.join\(ROOT, "tests", "litmus-scaling"\)#os.path.join(ROOT, "tests", "fixtures", "litmus-scaling")#g' \
  scripts/scaling.py

# Each proptest config names its regressions file (proptest would look for
# it beside the test's source otherwise).
for f in tests/*/*.rs; do
  case "$f" in tests/fixtures/* | tests/common/*) continue ;; esac
  grep -q 'ProptestConfig {' "$f" || continue
  name=$(basename "$f" .rs)
  dir=$(basename "$(dirname "$f")")
  [ "$dir" = tests ] && file="$name" || file="$dir-$name"
  perl -0pi -e "s#ProptestConfig \\{ cases: ([^,]+), \\.\\.ProptestConfig::default\\(\\) \\}#ProptestConfig { cases: \$1, failure_persistence: crate::common::regressions(\"$file\"), ..ProptestConfig::default() }#g" "$f"
done
echo "moved; now: cargo fmt --all, and run the tests that read fixtures"
