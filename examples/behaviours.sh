#!/usr/bin/env bash
# Each switchable behaviour of issue 27 flipped from its default, one at a time, on the
# retrieval benchmarks: the six-month workloads (dev, holdout3; store alone) and the LoCoMo
# dev folds. Prints one line per configuration: worst found@3 over the checkpoints of each
# workload, and LoCoMo R@10, MRR@10 and the worst fold's R@10. docs/benchmarks.md
# ("The seeds' behaviours") records its output.
#
#   examples/behaviours.sh [BEHAVIOUR...]     (default: every behaviour)
#
# Needs the model (scripts/models/fetch.sh) and ../shared/bench/locomo-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example workload --example locomo
bin=target/release/examples
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    names=(trajectories context-match feedback reliability type-defaults tiers retroactive-importance retrieval-forgetting dream-insights)
fi
out=$(mktemp -d)
run() { # label, then switches
    local label=$1; shift
    local args=()
    for s in "$@"; do args+=(--behaviour "$s"); done
    for set in dev holdout3; do
        "$bin/workload" "examples/workload/$set.json" "${args[@]}" > "$out/$set.txt"
    done
    "$bin/locomo" ../shared/bench/locomo-dev/*.json "${args[@]}" > "$out/locomo.txt"
    local dev hold r10 mrr worst
    dev=$(grep -o 'found@3 [0-9.]*' "$out/dev.txt" | awk '{print $2}' | sort -n | head -1)
    hold=$(grep -o 'found@3 [0-9.]*' "$out/holdout3.txt" | awk '{print $2}' | sort -n | head -1)
    r10=$(awk '/^overall 1-4/ {print $6}' "$out/locomo.txt")
    mrr=$(awk '/^overall 1-4/ {print $9}' "$out/locomo.txt")
    worst=$(awk '/^fold / {print $6}' "$out/locomo.txt" | sort -n | head -1)
    printf '%-34s dev %s  holdout3 %s  LoCoMo R@10 %s MRR@10 %s worst fold %s\n' "$label" "$dev" "$hold" "$r10" "$mrr" "$worst"
}
echo "commit $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "worst found@3 over days 183-282 (store alone); LoCoMo dev categories 1-4"
run "defaults"
# The examples print "behaviours on: a, b": a behaviour on by default is measured off.
on_by_default=$(grep -m1 '^behaviours on:' "$out/dev.txt" | cut -d: -f2 | tr -d ' ' | tr ',' ' ')
for name in "${names[@]}"; do
    if [[ " $on_by_default " == *" $name "* ]]; then
        run "$name=off" "$name=off"
    else
        run "$name=on" "$name=on"
    fi
done
rm -rf "$out"
