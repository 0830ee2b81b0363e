#!/usr/bin/env bash
# The one run on a many-core machine (issue 23): build two committed trees in place, time the scaling
# table, the epoch breakdown, thread placement on 1-4 threads and the A/B of e5f8e3d against HEAD.
#
# It reads only what benchmarks/prepare_device (the commands in benchmarks/README.md, "Many cores")
# put under out/device/: head.tar and old.tar (`git archive HEAD` / `git archive e5f8e3d`: the trees
# run are committed snapshots, never the working tree), py/ (pure-Python packages the machine may lack:
# setuptools >= 77 for the pyproject's license field, platformdirs) and data/blogcatalog.  Every table
# goes under $OUT (default out/device/results); each step has its own time limit so the whole stays
# within ~7 minutes.  THREADS (default "1 2 4 8 16"), NODES (Chung-Lu, default 500000), REPEATS
# (default 3) and JOBS (build, default: the cores) shrink it for a test run on a small machine.
# AB=0 builds HEAD alone (no old.tar needed) and skips the A/B and the placement check: the
# second round's run, which must fit about 5 minutes (THREADS="1 2 16"); BREAKDOWN_REPEATS and
# BREAKDOWN_LIMIT (seconds) size its breakdown step.  AB_ARGS (bench_ab.py's workload options) and
# AB_LIMIT (seconds) choose the A/B; PLACEMENT=0 skips the placement check.
set -u
ROOT=$(pwd)
DEV=$ROOT/out/device
OUT=${OUT:-$DEV/results}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1          # (never a bare `wait` below: it would wait for tee)

THREADS=${THREADS:-"1 2 4 8 16"}
NODES=${NODES:-500000}
REPEATS=${REPEATS:-3}
JOBS=${JOBS:-$(nproc)}
AB=${AB:-1}
BREAKDOWN_REPEATS=${BREAKDOWN_REPEATS:-$REPEATS}
BREAKDOWN_LIMIT=${BREAKDOWN_LIMIT:-60}
SCALING_LIMIT=${SCALING_LIMIT:-200}
MAXT=${THREADS##* }
W=$(mktemp -d /tmp/lgekit-device.XXXXXX)
export LGEKIT_DATA=$DEV/data
export PYTHONPATH=$DEV/py                   # only pure-Python packages; each step prepends its tree
export PYTHONDONTWRITEBYTECODE=1
T0=$(date +%s)
step() { echo; echo "=== $1 (t = $(( $(date +%s) - T0 )) s)"; }

step machine
lscpu > "$OUT/lscpu.txt"; lscpu -e > "$OUT/lscpu-e.txt" 2>&1
head -20 "$OUT/lscpu.txt"; cat "$OUT/lscpu-e.txt" | head -40
python3 -c "import sys, numpy, scipy, Cython, setuptools; print(sys.version.split()[0], 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'Cython', Cython.__version__, 'setuptools', setuptools.__version__)"

mkdir -p "$W/A" "$W/B"
tar -xf "$DEV/head.tar" -C "$W/B"
if [ "$AB" = 1 ]; then
    step "unpack and build A (old.tar) and B (head.tar) with -j $JOBS, side by side"
    tar -xf "$DEV/old.tar" -C "$W/A"
    ( cd "$W/A" && s=$(date +%s) && timeout 200 env LGEKIT_BUILD_JOBS=$JOBS python3 setup.py build_ext --inplace -j "$JOBS" > "$OUT/build-A.log" 2>&1; echo "A build: exit $?, $(( $(date +%s) - s )) s" ) &
    PA=$!
else
    step "build B (HEAD) with -j $JOBS"
fi
( cd "$W/B" && s=$(date +%s) && timeout 200 env LGEKIT_BUILD_JOBS=$JOBS python3 setup.py build_ext --inplace -j "$JOBS" > "$OUT/build-B.log" 2>&1; echo "B build: exit $?, $(( $(date +%s) - s )) s" ) &
PB=$!
[ "$AB" = 1 ] && wait "$PA"
wait "$PB"
tail -2 "$OUT/build-B.log"
ls "$W/B/lgekit/models/"*.so | wc -l

B() { ( cd "$W/B" && PYTHONPATH="$W/B:$PYTHONPATH" "$@" ); }

step "scaling table (B), threads $THREADS, $REPEATS repeats"
B timeout "$SCALING_LIMIT" python3 benchmarks/bench_scaling.py --threads $THREADS --repeats "$REPEATS" --nodes "$NODES" \
    --rows sgd-hogwild sgd-deterministic sgd-blocks dcd-deterministic --skip-model --json "$OUT/scaling.json" \
    > "$OUT/scaling.txt" 2>&1; echo "exit $?"; cat "$OUT/scaling.txt"

if [ "$AB" = 1 ]; then
AB_ARGS=${AB_ARGS:-"--graph chung-lu --nodes $NODES --threads $MAXT --workloads sgd-hogwild sgd-deterministic --rounds 3 --epochs 6"}
step "A/B: $AB_ARGS"
B timeout "${AB_LIMIT:-100}" python3 benchmarks/bench_ab.py --tree A="$W/A" --tree B="$W/B" --no-build --workdir "$W/ab" \
    $AB_ARGS --json "$OUT/ab.json" > "$OUT/ab.txt" 2>&1; echo "exit $?"; cat "$OUT/ab.txt"
fi

step "breakdown (B), BlogCatalog and Chung-Lu, threads 1 2 $MAXT"
B timeout "$BREAKDOWN_LIMIT" python3 benchmarks/bench_scaling.py --breakdown --threads 1 2 "$MAXT" --repeats "$BREAKDOWN_REPEATS" \
    --nodes "$NODES" --skip-model --json "$OUT/breakdown.json" > "$OUT/breakdown.txt" 2>&1
echo "exit $?"; cat "$OUT/breakdown.txt"

if [ "$AB" = 1 ] && [ "${PLACEMENT:-1}" = 1 ]; then
step "placement: OMP_PROC_BIND=close OMP_PLACES=cores, BlogCatalog SGD, 1 2 4 threads"
B env OMP_PROC_BIND=close OMP_PLACES=cores timeout 40 python3 benchmarks/bench_scaling.py --graphs blogcatalog \
    --threads 1 2 4 --repeats "$REPEATS" --rows sgd-hogwild sgd-deterministic --skip-model \
    --json "$OUT/placement.json" > "$OUT/placement.txt" 2>&1; echo "exit $?"; cat "$OUT/placement.txt"
fi

step done
rm -rf "$W"
