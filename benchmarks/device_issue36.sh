#!/usr/bin/env bash
# Issue 36's one run on a many-core machine: the diagnostics' cost and DCD against SGD on one quiet
# core, the A/B of the DCD epoch (the tree before the issue against HEAD), and the paper's full
# BlogCatalog reproduction (`lgekit reproduce --dataset blogcatalog`) with every core, before and after,
# with both reports kept so that their verdicts can be compared.
#
# It reads what the commands in benchmarks/README.md ("Diagnostics and DCD") put under out/device/:
# head.tar and old.tar (`git archive` of the two commits), py/ (setuptools >= 77 and platformdirs,
# unpacked) and data/blogcatalog.  Results go under $OUT (default out/device/results): log.txt,
# diagnostics.txt, ab.txt and the two reports.  Each step has its own time limit, and the two
# reproductions share what is left of BUDGET seconds (default 570); ROUNDS, AB_ROUNDS, JOBS and
# REPRODUCE ("full", "quick" or "none") shrink it for a test run on a small machine.
set -u
ROOT=$(pwd)
DEV=$ROOT/out/device
OUT=${OUT:-$DEV/results}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1          # (never a bare `wait` below: it would wait for tee)

JOBS=${JOBS:-$(nproc)}
ROUNDS=${ROUNDS:-12}
AB_ROUNDS=${AB_ROUNDS:-3}
REPRODUCE=${REPRODUCE:-full}
BUDGET=${BUDGET:-570}
DIAG_THREADS=${DIAG_THREADS:-}              # more thread counts for the diagnostics' table, e.g. "16"
W=$(mktemp -d /tmp/lgekit-issue36.XXXXXX)
export LGEKIT_DATA=$DEV/data PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
T0=$(date +%s)
step() { echo; echo "=== $1 (t = $(( $(date +%s) - T0 )) s)"; }

step machine
lscpu | head -20
python3 -c "import sys, numpy, scipy, Cython, setuptools; print(sys.version.split()[0], 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'Cython', Cython.__version__)"

step "unpack and build A (old.tar) and B (head.tar), side by side"
mkdir -p "$W/A" "$W/B"
tar -xf "$DEV/old.tar" -C "$W/A"
tar -xf "$DEV/head.tar" -C "$W/B"
for T in A B; do
    ( cd "$W/$T" && s=$(date +%s) && PYTHONPATH=$DEV/py timeout 240 env LGEKIT_BUILD_JOBS=$JOBS \
        python3 setup.py build_ext --inplace -j "$JOBS" > "$W/build-$T.log" 2>&1; \
        echo "$T build: exit $?, $(( $(date +%s) - s )) s"; tail -2 "$W/build-$T.log" ) &
    eval "P$T=\$!"
done
wait "$PA"
wait "$PB"

for T in 1 $DIAG_THREADS; do
    step "diagnostics and DCD / SGD on $T thread(s) (B)"
    ( cd "$W/B" && PYTHONPATH=$W/B:$DEV/py timeout 100 python3 benchmarks/bench_diagnostics.py --rounds "$ROUNDS" \
        --threads "$T" >> "$OUT/diagnostics.txt" 2>&1; echo "exit $?" )
done
cat "$OUT/diagnostics.txt"

step "A/B of the epochs (DCD deterministic, SGD hogwild control), 1 and 16 threads"
( cd "$W/B" && PYTHONPATH=$W/B:$DEV/py timeout 150 python3 benchmarks/bench_ab.py --tree "A=$W/A" --tree "B=$W/B" \
    --no-build --graph blogcatalog --workloads dcd-deterministic sgd-hogwild --threads 1 16 \
    --rounds "$AB_ROUNDS" --epochs 6 > "$OUT/ab.txt" 2>&1; echo "exit $?" ); tail -30 "$OUT/ab.txt"

[ "$REPRODUCE" = none ] || for T in B A; do
    left=$(( BUDGET - ($(date +%s) - T0) ))
    [ "$T" = B ] && left=$(( left / 2 + 30 ))          # B first, with about half of what is left
    step "lgekit reproduce --dataset blogcatalog ($REPRODUCE) with $JOBS jobs, tree $T, at most $left s"
    s=$(date +%s)
    ( cd "$W" && PYTHONPATH=$W/$T:$DEV/py timeout "$left" python3 -m lgekit reproduce --dataset blogcatalog \
        $( [ "$REPRODUCE" = quick ] && echo --quick ) --jobs "$JOBS" --out "$W/rep-$T" > "$W/reproduce-$T.log" 2>&1
      echo "tree $T reproduce: exit $?, $(( $(date +%s) - s )) s" )
    tail -4 "$W/reproduce-$T.log"
    cp "$W/rep-$T/report.md" "$OUT/report-$T.md" 2>/dev/null
    ls "$W/rep-$T/cells" 2>/dev/null | wc -l
done
step done
