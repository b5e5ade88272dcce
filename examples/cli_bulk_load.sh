#!/usr/bin/env bash
# Bulk-loads N memories through the `memstr` CLI (one process per memory, as a new user's
# loop would), then times the first `memstr search`, `memstr index`, and a search after it.
# Counts events before and after the first search: a search signs nothing.
#
#   cargo build --release --bin memstr
#   N=2000 bash examples/cli_bulk_load.sh            # uses target/release/memstr
#
# Needs the embedding model (`memstr model install`). MEMSTR_BIN picks another binary.
set -euo pipefail
BIN=${MEMSTR_BIN:-target/release/memstr}
N=${N:-2000}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
export MEMSTR_DIR="$DIR"
# A public test key (tests/support): protects nothing.
export MEMSTR_NSEC=5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a

topics=(garden bicycle kitchen budget python deploy hiking piano invoice sourdough
        tomatoes database migration holiday dentist library violin marathon router podcast)
people=(alice bob carol dave erin frank grace heidi ivan judy)
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
events() { "$BIN" stats --json | awk -F': ' '/"events"/ { gsub(/[ ,]/, "", $2); print $2 }'; }

# Only `memstr init` creates a store; the key stays in MEMSTR_NSEC.
"$BIN" init --from-env --no-key-file >/dev/null

t0=$(now)
for ((i = 0; i < N; i++)); do
  t=${topics[i % ${#topics[@]}]}
  u=${topics[(i * 7 + 3) % ${#topics[@]}]}
  p=${people[i % ${#people[@]}]}
  case $((i % 10)) in
    0 | 1 | 2) "$BIN" persona add people facts "$p-$t-$i" "$p talked about $t and $u on day $i" >/dev/null ;;
    3 | 4 | 5 | 6 | 7) "$BIN" journal "Day $i: worked on the $t, then some $u; $p called" >/dev/null ;;
    *) "$BIN" remember "note-$i" "The $t note number $i mentions $u" >/dev/null ;;
  esac
done
t1=$(now)
echo "loaded $N memories through the CLI in $(secs "$t0" "$t1") s"
before=$(events)
t2=$(now)
"$BIN" search "who talked about sourdough and the piano" -n 5 >/dev/null
t3=$(now)
after=$(events)
echo "first search after the load: $(secs "$t2" "$t3") s; events $before -> $after"
t4=$(now)
"$BIN" index
t5=$(now)
echo "memstr index: $(secs "$t4" "$t5") s"
t6=$(now)
"$BIN" search "who talked about sourdough and the piano" -n 5 >/dev/null
t7=$(now)
echo "search after index: $(secs "$t6" "$t7") s; events $(events)"
