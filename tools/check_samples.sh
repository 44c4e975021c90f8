#!/usr/bin/env bash
# Runs every built doc sample against the installed tree and compares its stdout byte for byte with
# ../shared/golden/<seed>.stdout. One line per sample: match / differs / does not build yet.
# usage: check_samples.sh PREFIX BUILD_DIR GOLDEN_DIR [--show]
set -u
prefix=$1 build=$2 golden=$3 show=${4:-}
# shellcheck disable=SC1091
source "$prefix/set_env.sh"
fail=0 n_match=0 n=0
for src in samples/*.cpp; do
    stem=$(basename "$src" .cpp)
    n=$((n + 1))
    op=$(grep -o 'aclnn[A-Za-z0-9]*GetWorkspaceSize' "$src" | head -1 | sed 's/GetWorkspaceSize//')
    exp="$golden/$stem.stdout"
    status="" detail=""
    for variant in cmake gxx; do
        if [ "$variant" = cmake ]; then exe="$build/cmake/bin/sample_$stem"; else exe="$build/gxx/$stem"; fi
        if [ ! -x "$exe" ]; then status="does not build yet"; detail="no $variant build"; break; fi
        out=$(mktemp)
        timeout 60 "$exe" >"$out" 2>"$out.err"
        rc=$?
        if [ -n "$show" ] && [ "$variant" = cmake ]; then
            echo "---- $stem ($op), exit $rc ----"; cat "$out"
        fi
        if cmp -s "$out" "$exp" && [ $rc -eq 0 ]; then
            :
        else
            status="differs"
            detail="$variant build, exit $rc: $(diff "$exp" "$out" | grep -c '^[<>]') differing lines; first: $(diff "$exp" "$out" | grep -m1 '^>' || head -c 120 "$out.err")"
        fi
        rm -f "$out" "$out.err"
        [ -n "$status" ] && break
    done
    if [ -z "$status" ]; then status="match"; n_match=$((n_match + 1)); detail="cmake + g++ builds"; else fail=1; fi
    printf '%-22s %-38s %s (%s)\n' "$stem" "$op" "$status" "$detail"
done
echo "samples matching ../shared/golden: $n_match/$n"
exit $fail
