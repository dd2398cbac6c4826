#!/usr/bin/env bash
# slab's GPU path on a borrowed GPU machine that has the CUDA runtime but no MPI, HDF5, Kokkos or BLAS.
#
# Two halves, one file:
#   scripts/device_check.sh bundle [BUILD_DIR] [BUNDLE]   # here, after a -DSLAB_ENABLE_CUDA=ON build of slab-info,
#                                                         # slab-gram, slab-svd, test_gpu, test_runtime (and, when
#                                                         # built, slab-kernel-check, test_kernels_device,
#                                                         # test_frame_device_paths, slab-reduce,
#                                                         # slab-groupby): pack them,
#                                                         # libslab, every library they load except glibc's and
#                                                         # CUDA's, and a relocatable Open MPI 4.1 (mpirun, MCA
#                                                         # plugins, help texts) into BUNDLE/bundle.tar.xz
#                                                         # (default .device, git-ignored; ~17 MiB, 76 unpacked)
#   scripts/device_check.sh [run] [BUNDLE]                # there: unpack, find the CUDA libraries (toolkit, pip
#                                                         # wheels), run slab-info, the device tests, the kernel
#                                                         # checks (every entry point against its reference, then
#                                                         # throughput, then torch on the same sizes: sort, unique,
#                                                         # sum, index_add_), compute-sanitizer memcheck of the
#                                                         # kernels where the machine has it, a gram benchmark
#                                                         # (vs torch/cupy),
#                                                         # slab-svd and two array/frame apps on device memory;
#                                                         # logs to $OUT
#
# Every app run with --json also reports its host fallbacks ("fallbacks": operations without a device path that
# ran their host kernel on a CUDA rank; slab/engine/host_fallback.hpp): they are listed per run at the end of the
# summary, and on a GPU an app run with any fails its step (every app must run with none).
#
# The run half never stops at a failure: each program has a timeout and each step ends in one PASS/FAIL/SKIP
# line, repeated in the summary (00-summary.log). Without a GPU every step ends cleanly in SKIP ("no CUDA
# device"), which is how the bundle and this script are checked on a machine without one; where nvidia-smi
# lists a GPU, a step that behaves as if there were none FAILs.
#   GRAM_ROWS / GRAM_COLS   size of the gram benchmark's X (default W2: 5000 x 100,000 float64, 4 GB)
#   SVD_ROWS                rows of the slab-svd check's A (default W1: 100,000 x 1000)
#   KERNEL_TIME_SIZES       rows of slab-kernel-check's throughput runs (default 1048576,16777216)
#   STEP_TIMEOUT            seconds per program run (default 120)
#   TOTAL_BUDGET            seconds for the whole run (default 360); steps past it are skipped, not started
# The run prints its own estimate first (about 4 minutes on one H200 with the defaults: see ESTIMATE below).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=run
if [ "${1:-}" = bundle ] || [ "${1:-}" = run ]; then
  mode=$1
  shift
fi

# Libraries the bundle leaves out: glibc's own (the machine's loader must match them) and the CUDA
# libraries (big; the run half finds them on the GPU machine).
glibc_re='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so'
cuda_re='^(libcuda|libcudart|libcublas|libcublasLt|libcusolver|libcusparse|libnvJitLink|libnccl)\.so'

# ---------------------------------------------------------------------------------------------------------------
# bundle (here)

ompi_plugin_wanted() {  # the MCA plugins a single-node ob1/vader run needs (no ucx, ofi, psm, verbs, oshmem)
  case "$1" in
    *ucx* | *ofi* | *psm* | *openib* | *verbs* | *_flux* | *_jsm* | *monitoring* | mca_atomic_* | mca_memheap_* | \
      mca_scoll_* | mca_spml_* | mca_sshmem_* | mca_ras_gridengine* | mca_crs_* | mca_vprotocol_* | \
      libompi_dbg_msgq*)
      return 1
      ;;
  esac
  return 0
}

copy_deps() {  # copy_deps ELF... : every non-glibc, non-CUDA library they load into $B/lib (dereferenced)
  local f name path
  for f in "$@"; do
    ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
      [[ $name =~ $glibc_re || $name =~ $cuda_re ]] && continue
      [ -e "$B/lib/$name" ] || cp -L "$path" "$B/lib/$name"
    done
  done
}

make_bundle() {
  local build=${1:-$here/build-gpu}
  local dest=${2:-$here/.device}
  B=$(mktemp -d)/slab-bundle  # staged, then packed into $dest/bundle.tar.xz (76 MiB -> ~17 MiB)
  local bindir=$build/bin
  local sys=/usr/lib/x86_64-linux-gnu
  local ompi_lib=$sys/openmpi/lib
  [ -x "$bindir/slab-info" ] || {
    echo "device_check.sh bundle: no $bindir/slab-info; build first" >&2
    exit 2
  }
  mkdir -p "$B/bin" "$B/lib/openmpi3" "$B/lib/pmix" "$B/share" "$B/etc"
  local exe
  for exe in slab-info slab-gram slab-svd; do cp "$bindir/$exe" "$B/bin/"; done
  for exe in slab-kernel-check slab-reduce slab-groupby slab-merge slab-rolling; do  # optional: SKIP where absent
    [ -x "$bindir/$exe" ] && cp "$bindir/$exe" "$B/bin/"
  done
  for exe in test_gpu test_runtime test_kernels_device test_frame_device_paths; do
    local t
    t=$(find "$build/tests" -type f -name "$exe" -perm -u+x | head -1)
    [ -n "$t" ] && cp "$t" "$B/bin/"
  done
  # Open MPI 4.1 (Debian layout): mpirun = orterun; orted for completeness; the MCA plugins and help texts.
  cp -L /usr/bin/orterun /usr/bin/orted "$B/bin/"
  ln -s orterun "$B/bin/mpirun"
  ln -s orterun "$B/bin/mpiexec"
  local p
  for p in "$ompi_lib"/openmpi3/*.so; do
    ompi_plugin_wanted "$(basename "$p")" && cp -L "$p" "$B/lib/openmpi3/"
  done
  cp -L "$sys"/pmix2/lib/pmix/*.so "$B/lib/pmix/" 2>/dev/null
  cp -rL /usr/share/openmpi "$B/share/openmpi"
  [ -d "$sys/pmix2/share/pmix" ] && cp -rL "$sys/pmix2/share/pmix" "$B/share/pmix"
  # The plugins' own defaults file points at /usr; the run half sets every MCA path in the environment.
  : >"$B/etc/openmpi-mca-params.conf"
  copy_deps "$B"/bin/* "$B"/lib/openmpi3/*.so "$B"/lib/pmix/*.so
  copy_deps "$B"/lib/*.so*  # libraries' own needs (ldd is transitive, but cheap to be sure)
  # libslab under its soname (ldd copied it); also the plugins' common libraries (libmca_common_*).
  chmod -R u+w "$B"
  find "$B/bin" "$B/lib" -type f -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
  # A missing library is a bundle error: report it now rather than on the GPU machine.
  local missing
  missing=$(LD_LIBRARY_PATH=$B/lib ldd "$B"/bin/* "$B"/lib/*.so* "$B"/lib/openmpi3/*.so 2>/dev/null |
    awk '/not found/ {print $1}' | grep -Ev "$cuda_re" | sort -u)
  [ -n "$missing" ] && echo "device_check.sh bundle: WARNING: not found: $missing" >&2
  local glibc_max
  glibc_max=$(find "$B/bin" "$B/lib" -type f -exec objdump -T {} \; 2>/dev/null | grep -o 'GLIBC_[0-9.]*' |
    sort -u -V | tail -1)
  echo "$glibc_max" >"$B/GLIBC_NEEDED"
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -C "$B" -cf - . | xz -T2 -6 >"$dest/bundle.tar.xz"
  cp "$B/GLIBC_NEEDED" "$dest/"
  echo "bundle: $dest/bundle.tar.xz ($(du -sh "$dest" | cut -f1); unpacked $(du -sh "$B" | cut -f1));" \
    "newest glibc symbol needed: $glibc_max"
  rm -rf "${B%/slab-bundle}"
}

unpack_bundle() {  # unpack_bundle DIR: set B to a usable bundle tree (DIR itself, or DIR/bundle.tar.xz unpacked)
  if [ -d "$1/bin" ]; then
    B=$(cd "$1" && pwd)
    return
  fi
  [ -f "$1/bundle.tar.xz" ] || {
    echo "device_check.sh: no bundle in '$1' (expected $1/bundle.tar.xz; make it with: $0 bundle)" >&2
    exit 2
  }
  B=${TMPDIR:-/tmp}/slab-device-bundle
  rm -rf "$B"
  mkdir -p "$B"
  if command -v xz >/dev/null; then
    xz -dc "$1/bundle.tar.xz" | tar -C "$B" -xf -
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1/bundle.tar.xz" "$B"
  fi
}

# ---------------------------------------------------------------------------------------------------------------
# run (there)

OUT=${OUT:-/tmp/device_check_out}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
TOTAL_BUDGET=${TOTAL_BUDGET:-360}  # seconds for the whole run: later steps are skipped past it
KERNEL_TIME_SIZES=${KERNEL_TIME_SIZES:-1048576,16777216}
# Seconds each step is expected to take on one H200 with the defaults (2026-11-29's run, plus the kernel checks:
# the reference instantiation is Thrust's serial CPU backend, one core, at up to 2^20 + 1 rows per entry point).
ESTIMATE="info 15, tests 10, kernel tests 60, kernel throughput 60, torch 15, memcheck 40, gram 60, svd 20, device apps 20"
GRAM_ROWS=${GRAM_ROWS:-5000}
GRAM_COLS=${GRAM_COLS:-100000}
SVD_ROWS=${SVD_ROWS:-100000}
summary=()
fallbacks=()  # one line per app run with --json: its "fallbacks" member

note() { echo "== $*"; }
result() {  # result STEP STATUS DETAIL: one summary line
  summary+=("$(printf '%-28s %-5s %s' "$1" "$2" "$3")")
  echo "== RESULT $1: $2 $3"
}

# Directories holding each CUDA library slab loads: the toolkit first, then the pip wheels (nvidia/*/lib,
# nvidia/cu13/lib), then whatever the loader already knows.
find_cuda_libs() {
  local wheels="" name d found dirs=""
  wheels=$(python3 -c 'import nvidia, os; print(" ".join(os.path.abspath(p) for p in nvidia.__path__))' 2>/dev/null)
  for name in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcusolver.so.12 libcusparse.so.12 \
    libnvJitLink.so.13 libnccl.so.2; do
    found=""
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
      [ -e "$d/$name" ] && found=$d && break
    done
    if [ -z "$found" ] && [ -n "$wheels" ]; then
      found=$(find $wheels -name "$name" 2>/dev/null | head -1)
      found=${found%/*}
    fi
    if [ -z "$found" ]; then
      found=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
      found=${found%/*}
    fi
    echo "  $name: ${found:-NOT FOUND}" >&2
    [ -n "$found" ] && case ":$dirs:" in *":$found:"*) ;; *) dirs=${dirs:+$dirs:}$found ;; esac
  done
  [ -d /usr/local/nvidia/lib64 ] && dirs=$dirs:/usr/local/nvidia/lib64
  echo "$dirs"
}

# The environment of every slab program (and the bundle's mpirun): the bundle's libraries and a relocated
# Open MPI (single node: ob1 + shared memory, no ssh). Only these commands get LD_LIBRARY_PATH: the bundle's
# libstdc++ must not reach the machine's python3.
bundle_env() {
  # shellcheck disable=SC2054  # btl=self,vader is one value
  BENV=(PATH="$B/bin:$PATH" LD_LIBRARY_PATH="$B/lib:$CUDA_DIRS"
    OPAL_PREFIX="$B" OPAL_EXEC_PREFIX="$B" OPAL_BINDIR="$B/bin" OPAL_LIBDIR="$B/lib"
    OPAL_PKGLIBDIR="$B/lib/openmpi3" OPAL_DATADIR="$B/share" OPAL_DATAROOTDIR="$B/share"
    OPAL_PKGDATADIR="$B/share/openmpi" OPAL_SYSCONFDIR="$B/etc"
    OMPI_MCA_mca_base_component_path="$B/lib/openmpi3"
    OMPI_MCA_mca_base_param_files="$B/etc/openmpi-mca-params.conf"
    PMIX_MCA_mca_base_component_path="$B/lib/pmix" PMIX_INSTALL_PREFIX="$B" HWLOC_PLUGINS_PATH="$B/lib/hwloc"
    OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
    OMPI_MCA_btl_base_warn_component_unused=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMP_NUM_THREADS=1 NCCL_DEBUG="${NCCL_DEBUG:-WARN}")
}
with_bundle() { env "${BENV[@]}" OPENBLAS_NUM_THREADS="${BLAS_THREADS:-1}" "$@"; }
mpi() {  # mpi N PROGRAM ARGS...: N ranks of a bundle program, under the step timeout and the total budget
  local n=$1
  shift
  local left=$((TOTAL_BUDGET - SECONDS))
  if [ $left -lt 15 ]; then
    echo "device_check.sh: skipped: the total budget of $TOTAL_BUDGET s is spent" >&2
    return 124
  fi
  timeout -k 10 "$((left < STEP_TIMEOUT ? left : STEP_TIMEOUT))" env "${BENV[@]}" \
    OPENBLAS_NUM_THREADS="${BLAS_THREADS:-1}" mpirun -n "$n" "$@"
}

# gtest binary at N ranks: PASS when it exits 0, SKIP when every test skipped (no device), else FAIL.
gtest_step() {
  local name=$1 n=$2 log=$3
  shift 3
  note "$name at $n rank(s)"
  local t0=$SECONDS rc
  mpi "$n" "$B/bin/$name" --gtest_color=no "$@" >"$OUT/tmp.log" 2>&1
  rc=$?
  cat "$OUT/tmp.log" >>"$log"
  local passed skipped failed
  # Test-result lines end in "(N ms)" (the listings in gtest's footer do not); counted over all ranks.
  passed=$(grep -c '^\[       OK \] .*([0-9]* ms)$' "$OUT/tmp.log")
  skipped=$(grep -c '^\[  SKIPPED \] .*([0-9]* ms)$' "$OUT/tmp.log")
  failed=$(grep -c '^\[  FAILED  \] .*([0-9]* ms)$' "$OUT/tmp.log")
  local what="rc=$rc ok=$passed skipped=$skipped failed=$failed (rank-tests; $((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then
    result "$name -n $n" FAIL "$what"
  elif [ "$skipped" -gt 0 ] && [ "$DEVICE_COUNT" -gt 0 ] && grep -q 'no CUDA device' "$OUT/tmp.log"; then
    result "$name -n $n" FAIL "$what: skipped as if without a GPU, but nvidia-smi lists $DEVICE_COUNT"
  elif [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
    result "$name -n $n" SKIP "$what: $(grep -m1 -o 'no CUDA device[^"]*' "$OUT/tmp.log" || echo skipped)"
  else
    result "$name -n $n" PASS "$what"
  fi
  rm -f "$OUT/tmp.log"
}

json_field() { grep -o "\"$2\": $3" <<<"$1"; }  # json_field LINE KEY VALUE: non-empty when KEY is VALUE

# note_fallbacks RUN FILE: the "fallbacks" member of the --json line in FILE, for the summary's list.
note_fallbacks() {
  local fb
  fb=$(grep -o '"fallbacks":{"ops":{[^}]*},"total":[0-9]*}' "$2" 2>/dev/null | tail -1)
  fallbacks+=("$(printf '%-28s %s' "$1" "${fb:-(no --json line)}")")
}

# Budgeted run of an MPI-free bundle program: the step timeout, within what is left of the total budget.
run_budgeted() {
  local left=$((TOTAL_BUDGET - SECONDS))
  if [ $left -lt 15 ]; then
    echo "device_check.sh: skipped: the total budget of $TOTAL_BUDGET s is spent" >&2
    return 124
  fi
  timeout -k 10 "$((left < STEP_TIMEOUT ? left : STEP_TIMEOUT))" env "${BENV[@]}" "$@"
}

# The device kernels (docs/ARCHITECTURE.md, "Kernels"): test_kernels_device (every entry point on the device
# against its reference instantiation on 0 .. 2^20 + 1 rows, each device run twice) and slab-kernel-check's
# throughput at KERNEL_TIME_SIZES rows as a fraction of the copy bandwidth (determinism only at those sizes: the
# serial reference would take minutes at 2^24).
kernels_step() {
  local log=$OUT/06-kernels.log
  : >"$log"
  if [ -x "$B/bin/test_kernels_device" ]; then
    gtest_step test_kernels_device 1 "$log"
  else
    result "test_kernels_device -n 1" SKIP "not in the bundle (build test_kernels_device before bundling)"
  fi
  if [ ! -x "$B/bin/slab-kernel-check" ]; then
    result "slab-kernel-check" SKIP "not in the bundle (build slab-kernel-check before bundling)"
    return
  fi
  note "slab-kernel-check --max-check 1 --time-sizes $KERNEL_TIME_SIZES --repeats 3" | tee -a "$log"
  local t0=$SECONDS rc
  run_budgeted "$B/bin/slab-kernel-check" --max-check 1 --time-sizes "$KERNEL_TIME_SIZES" --repeats 3 \
    >"$OUT/kernels.jsonl" 2>>"$log"
  rc=$?
  cat "$OUT/kernels.jsonl" >>"$log"
  local line
  line=$(python3 - "$OUT/kernels.jsonl" <<'PY'
import json, sys
rows = []
for l in open(sys.argv[1]):
    try:
        rows.append(json.loads(l))
    except ValueError:
        pass
dev = next((r for r in rows if r.get("check") == "device"), {})
thr = [r for r in rows if r.get("check") == "throughput"]
summ = next((r for r in rows if r.get("check") == "summary"), {})
out = {"available": dev.get("available"), "device": dev.get("name"), "copy_GBps": dev.get("copy_GBps"),
       "failures": summ.get("failures"), "throughput_runs": len(thr),
       "nondeterministic": [r["entry"] for r in thr if not r.get("deterministic")]}
big = [r for r in thr if r["n"] == max((t["n"] for t in thr), default=0)]
out["copy_fraction_at_largest"] = {r["entry"]: r["copy_fraction"] for r in big}
print(json.dumps(out))
PY
)
  echo "KERNEL_SUMMARY $line" >>"$log"
  torch_step "$OUT/kernels.jsonl" "$log"
  rm -f "$OUT/kernels.jsonl"
  local what="rc=$rc ($((SECONDS - t0)) s) $line"
  if grep -q '"available": false' <<<"$line"; then
    if [ "$DEVICE_COUNT" -gt 0 ]; then
      result "slab-kernel-check" FAIL "no device seen although nvidia-smi lists $DEVICE_COUNT; $what"
    else
      result "slab-kernel-check" SKIP "no CUDA device; $what"
    fi
  elif [ $rc -eq 0 ] && grep -q '"failures": 0' <<<"$line"; then
    result "slab-kernel-check" PASS "$what"
  else
    result "slab-kernel-check" FAIL "$what"
  fi
}

# torch on the same sizes as the kernels' throughput (KERNEL_TIME_SIZES), where torch has the operation: sort with
# indices (slab: frame.sort.words_permutation), unique with counts (frame.ops.unique_value_counts), sum of float64
# (array.reduction.float64, the fused statistics) and group sums by index_add_ (frame.groupby.aggregate_finalize). One
# line per operation and size with both times and slab's speed-up (> 1: slab faster); SKIP without torch or a GPU.
torch_step() {
  local jsonl=$1 log=$2 out rc
  out=$(run_budgeted python3 - "$jsonl" "$KERNEL_TIME_SIZES" 2>&1 <<'PY'
import json, sys, time
rows = []
for l in open(sys.argv[1]):
    try:
        rows.append(json.loads(l))
    except ValueError:
        pass
sizes = [int(x) for x in sys.argv[2].split(",") if x]
try:
    import torch
    assert torch.cuda.is_available(), "torch sees no GPU"
except Exception as e:  # noqa: BLE001
    print("TORCH_SKIP", repr(e))
    sys.exit(0)
def best(fn, repeats=3):
    fn(); torch.cuda.synchronize()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter(); fn(); torch.cuda.synchronize(); ts.append(time.perf_counter() - t)
    return min(ts)
def slab_s(prefix, n):
    hit = [r for r in rows if r.get("check") == "throughput" and r.get("n") == n and r["entry"].startswith(prefix)]
    return min((r["seconds"] for r in hit), default=None)
g = torch.Generator(device="cuda").manual_seed(1)
for n in sizes:
    keys = torch.randint(0, 1 << 40, (n,), device="cuda", dtype=torch.int64, generator=g)
    few = torch.randint(0, 1000, (n,), device="cuda", dtype=torch.int64, generator=g)
    x = torch.rand(n, device="cuda", dtype=torch.float64, generator=g)
    acc = torch.zeros(1000, device="cuda", dtype=torch.float64)
    ops = [("sort", "frame.sort.words_permutation", lambda: torch.sort(keys, stable=True)),
           ("unique+counts", "frame.ops.unique_value_counts", lambda: torch.unique(few, return_counts=True)),
           ("sum", "array.reduction.float64", lambda: torch.sum(x)),
           ("group sums", "frame.groupby.aggregate_finalize", lambda: acc.zero_().index_add_(0, few, x))]
    for name, entry, fn in ops:
        t = best(fn)
        s = slab_s(entry, n)
        print("TORCH %s n=%d torch %.6g s slab %s s%s" % (name, n, t, "%.6g" % s if s else "-",
              " slab speed-up over torch %.2f" % (t / s) if s else " (no slab row: %s)" % entry))
PY
)
  rc=$?
  echo "$out" >>"$log"
  if [ $rc -ne 0 ]; then
    result "torch comparison" FAIL "rc=$rc: $(tail -1 <<<"$out")"
  elif grep -q '^TORCH_SKIP' <<<"$out"; then
    result "torch comparison" SKIP "$(grep '^TORCH_SKIP' <<<"$out")"
  else
    result "torch comparison" PASS "$(grep -c '^TORCH ' <<<"$out") timings (06-kernels.log: TORCH lines)"
  fi
}

# compute-sanitizer memcheck of every kernel entry point on small sizes (the toolkit's, where the machine has it).
memcheck_step() {
  local log=$OUT/08-memcheck.log sanitizer
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ ! -x "$B/bin/slab-kernel-check" ]; then
    result "compute-sanitizer memcheck" SKIP "slab-kernel-check not in the bundle"
  elif [ -z "$sanitizer" ]; then
    result "compute-sanitizer memcheck" SKIP "no compute-sanitizer on this machine"
  elif [ "$DEVICE_COUNT" = 0 ]; then
    result "compute-sanitizer memcheck" SKIP "no CUDA device"
  else
    note "$sanitizer --tool memcheck slab-kernel-check --max-check 4097 --time-sizes ''" >"$log"
    run_budgeted "$sanitizer" --tool memcheck --error-exitcode 3 "$B/bin/slab-kernel-check" --max-check 4097 \
      --time-sizes '' >>"$log" 2>&1
    local rc=$?
    local errors
    errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$log" | tail -1)
    if [ $rc -eq 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$log"; then
      result "compute-sanitizer memcheck" PASS "$errors (08-memcheck.log)"
    else
      result "compute-sanitizer memcheck" FAIL "rc=$rc ${errors:-no summary} (08-memcheck.log)"
    fi
  fi
}

# Array and frame apps on device memory (W6 reduce_stats, W3 groupby, small sizes): whether they run there, and
# their host fallbacks (frames on GPU memory: device tasks read batch headers through copies, host tasks are staged).
device_apps_step() {
  local log=$OUT/07-apps.log
  : >"$log"
  local run app
  # Each app on the host, then on GPU memory at 1 rank and at 2 ranks sharing the GPU: the same "checks" (the
  # frame apps' are exact; W6's sums may differ in the last bits, so its checks are compared to 1e-12 relative).
  for run in "slab-reduce --generate --n 4000000" "slab-groupby --generate --rows 400000" \
    "slab-merge --generate --rows 400000 --right-rows 100000" "slab-rolling --generate --rows 400000 --window 1h"; do
    app=${run%% *}
    if [ ! -x "$B/bin/$app" ]; then
      result "$app device" SKIP "not in the bundle"
      continue
    fi
    # shellcheck disable=SC2086  # $run is the program and its flags
    mpi 1 "$B/bin/$app" ${run#* } --device-memory=off --json >"$OUT/host.log" 2>&1
    local n
    for n in 1 2; do
      note "$run --device-memory --json at $n rank(s)" | tee -a "$log"
      # shellcheck disable=SC2086
      mpi $n "$B/bin/$app" ${run#* } --device-memory --json >"$OUT/tmp.log" 2>&1
      local rc=$?
      cat "$OUT/tmp.log" >>"$log"
      note_fallbacks "$app device -n $n" "$OUT/tmp.log"
      local fb same
      fb=$(grep -o '"fallbacks":{"ops":{[^}]*},"total":[0-9]*}' "$OUT/tmp.log" | tail -1)
      same=$(python3 - "$OUT/host.log" "$OUT/tmp.log" <<'PY'
import json, math, sys
def checks(path):
    lines = [l for l in open(path) if l.startswith("{")]
    return json.loads(lines[-1])["checks"] if lines else None
a, b = checks(sys.argv[1]), checks(sys.argv[2])
ok = a is not None and b is not None and a.keys() == b.keys() and all(
    a[k] == b[k] or (isinstance(a[k], float) and math.isclose(a[k], b[k], rel_tol=1e-12)) for k in a)
print("same checks as the host" if ok else "checks differ from the host: %s vs %s" % (b, a))
PY
)
      if [ "$DEVICE_COUNT" -gt 0 ] && [ -n "$fb" ] && ! grep -q '"total":0}' <<<"$fb"; then
        result "$app device -n $n" FAIL "host fallbacks on a GPU (every app must run with none): $fb; $same"
      elif [ $rc -eq 0 ] && [ -n "$fb" ] && [[ $same == same* ]]; then
        result "$app device -n $n" "$([ "$DEVICE_COUNT" = 0 ] && echo SKIP || echo PASS)" \
          "$([ "$DEVICE_COUNT" = 0 ] && echo 'no CUDA device (ran on the host); ')$fb; $same"
      else
        result "$app device -n $n" FAIL "rc=$rc ${fb:-no --json line}; $same (see 07-apps.log)"
      fi
    done
  done
  rm -f "$OUT/host.log"
  rm -f "$OUT/tmp.log"
}

gram_step() {
  local log=$OUT/03-gram.log
  local dir=${TMPDIR:-/tmp}/slab-device-check
  mkdir -p "$dir"
  local x=$dir/w2.h5
  note "gram: generate X ${GRAM_ROWS} x ${GRAM_COLS} float64 (W2's generator) into $x" | tee -a "$log"
  rm -f "$x"
  local t0=$SECONDS
  if ! mpi 4 "$B/bin/slab-gram" --generate-file "$x" --rows "$GRAM_ROWS" --cols "$GRAM_COLS" \
    >>"$log" 2>&1; then
    result "gram generate" FAIL "see 03-gram.log"
    return
  fi
  result "gram generate" PASS "$((SECONDS - t0)) s"
  local threads
  threads=$(nproc)
  local mode
  for mode in host device; do
    local flag=--device-memory=off
    [ $mode = device ] && flag=--device-memory
    note "gram: slab-gram 1 rank, $mode memory ($threads BLAS threads on the host path)" | tee -a "$log"
    t0=$SECONDS
    BLAS_THREADS=$threads mpi 1 "$B/bin/slab-gram" --input "$x:/X" --json $flag --verbose \
      >"$OUT/gram-$mode.json" 2>>"$log"
    local rc=$?
    cat "$OUT/gram-$mode.json" >>"$log"
    note_fallbacks "slab-gram $mode" "$OUT/gram-$mode.json"
    echo "(rc=$rc, $((SECONDS - t0)) s wall)" >>"$log"
    [ $rc -eq 0 ] || result "gram slab $mode" FAIL "rc=$rc"
  done
  local left=$((TOTAL_BUDGET - SECONDS))
  [ $left -lt 15 ] && left=15
  PYTHONUNBUFFERED=1 timeout -k 5 $((left < 180 ? left : 180)) \
    python3 - "$OUT" "$x" "$here" "$GRAM_ROWS" "$GRAM_COLS" >>"$log" 2>&1 <<'EOF'
# Compare slab's host and device runs, then the same product with torch (or cupy) on the GPU, on the same file.
import json, os, sys, time
out, xfile, repo, rows, cols = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, os.path.join(repo, "perf", "peers"))
import numpy as np
import workloads  # the exact W2 generator and check values (perf/peers/workloads.py)

def load(mode):
    try:
        lines = open(os.path.join(out, "gram-%s.json" % mode)).read().splitlines()
        return json.loads([l for l in lines if l.startswith('{"app"')][-1])
    except (IndexError, OSError, ValueError):
        return None

def checks(j):
    if j is None:
        return None
    c = j.get("checks", j)
    return {k: c[k] for k in ("sum_Y", "trace_Y", "Y00", "Y10", "Ylast", "asym_max") if k in c}

def agree(a, b, tol=1e-9):
    if not a or not b:
        return False
    bad = [k for k in a if k in b and k != "asym_max" and abs(a[k] - b[k]) > tol * max(1.0, abs(a[k]))]
    if bad:
        print("  disagree:", {k: (a[k], b[k]) for k in bad})
    return not bad and len(a) >= 5

host, dev = load("host"), load("device")
ch, cd = checks(host), checks(dev)
print("slab host checks  ", ch)
print("slab device checks", cd)
def secs(j, key="seconds"):
    if not j:
        return None
    v = j.get(key, j.get("checks", {}).get(key))
    return v
summ = {"slab_host_s": secs(host), "slab_device_s": secs(dev),
        "slab_host_syrk_s": secs(host, "syrk_seconds_max"), "slab_device_syrk_s": secs(dev, "syrk_seconds_max"),
        "slab_host_read_s": secs(host, "read_seconds_max"), "slab_device_read_s": secs(dev, "read_seconds_max"),
        "host_device_agree": agree(ch, cd)}

peer = None
try:
    import h5py
    ok = workloads.w2_file_ok(xfile, rows, cols)  # spot values against the Python generator
    summ["file_matches_python_generator"] = ok
    t0 = time.time()
    with h5py.File(xfile, "r") as f:
        x = f["X"][...]
    read_s = time.time() - t0
    try:
        import torch
        t0 = time.time()
        dev_x = torch.from_numpy(x).cuda()
        torch.cuda.synchronize()
        summ["peer_h2d_s"] = time.time() - t0
        y = dev_x @ dev_x.T  # warm-up (cuBLAS handle, kernel selection)
        torch.cuda.synchronize()
        t0 = time.time()
        y = dev_x @ dev_x.T
        torch.cuda.synchronize()
        mm_s = time.time() - t0
        peer = ("torch " + torch.__version__, y.cpu().numpy(), mm_s)
    except Exception as e:
        print("torch failed:", repr(e))
        import cupy as cp
        t0 = time.time()
        dev_x = cp.asarray(x)
        cp.cuda.Stream.null.synchronize()
        summ["peer_h2d_s"] = time.time() - t0
        y = dev_x @ dev_x.T
        cp.cuda.Stream.null.synchronize()
        t0 = time.time()
        y = dev_x @ dev_x.T
        cp.cuda.Stream.null.synchronize()
        mm_s = time.time() - t0
        peer = ("cupy " + cp.__version__, cp.asnumpy(y), mm_s)
    cp_ = workloads.checks_w2(peer[1])
    print(peer[0], "checks", cp_)
    summ.update({"peer": peer[0], "peer_read_s": read_s, "peer_matmul_s": mm_s,
                 "peer_matmul_tflops": 2.0 * rows * rows * cols / mm_s / 1e12,
                 "peer_agrees_with_slab_device": agree(cp_, cd, 1e-8)})
except Exception as e:
    print("peer failed:", repr(e))
for a, b in (("slab_host_s", "slab_device_s"), ("slab_host_syrk_s", "slab_device_syrk_s")):
    if summ.get(a) and summ.get(b):
        summ[a.replace("host_", "") + "_host_over_device"] = summ[a] / summ[b]
if summ.get("slab_device_syrk_s") and summ.get("peer_matmul_s"):
    summ["syrk_device_over_peer_matmul"] = summ["slab_device_syrk_s"] / summ["peer_matmul_s"]
    # The issue's target: the Gram's rate (n (n + 1) m flops, dsyrk's count) at least half the peer's dgemm rate
    # (2 n^2 m flops) in the same run; slab's device Gram is dgemm over its upper tiles (linalg/gram_tiles.hpp).
    slab_rate = rows * (rows + 1) * cols / summ["slab_device_syrk_s"]
    summ["gram_rate_over_peer_dgemm_rate"] = slab_rate / (2.0 * rows * rows * cols / summ["peer_matmul_s"])
print("GRAM_SUMMARY " + json.dumps(summ))
EOF
  local line
  line=$(grep '^GRAM_SUMMARY ' "$log" | tail -1)
  echo "$line"
  if [ -z "$line" ] && [ "$DEVICE_COUNT" = 0 ] && ! python3 -c 'import numpy, h5py' 2>/dev/null; then
    result "gram compare" SKIP "no CUDA device, and this python3 has no numpy/h5py to compare the files"
  elif [ -z "$line" ]; then
    result "gram compare" FAIL "no summary; see 03-gram.log"
  elif [ "$DEVICE_COUNT" = 0 ] && [ -n "$(json_field "$line" host_device_agree true)" ]; then
    result "gram host vs device" SKIP "no CUDA device (the device run ran on the host); ${line#GRAM_SUMMARY }"
  elif [ "$SLAB_SEES_GPU" = 0 ]; then
    result "gram host vs device" FAIL "slab found no device although nvidia-smi lists one; ${line#GRAM_SUMMARY }"
  elif [ -n "$(json_field "$line" host_device_agree true)" ]; then
    result "gram host vs device" PASS "${line#GRAM_SUMMARY }"
  else
    result "gram host vs device" FAIL "${line#GRAM_SUMMARY }"
  fi
  rm -f "$x" "$OUT"/gram-*.json  # their contents are in 03-gram.log
}

# slab-svd (W1: TSQR + small SVD; cuSOLVER geqrf/orgqr/gesvd and cuBLAS dgemm on device memory) on the
# host path and on device memory, at 1 and 2 ranks: the singular values must agree.
svd_step() {
  local log=$OUT/05-svd.log
  : >"$log"
  local run
  for run in "1 host" "1 device" "2 device"; do
    set -- $run
    local flag=--device-memory=off
    [ "$2" = device ] && flag=--device-memory
    note "slab-svd --generate --rows $SVD_ROWS --cols 1000, $1 rank(s), $2 memory" | tee -a "$log"
    BLAS_THREADS=$(($(nproc) / $1)) mpi "$1" "$B/bin/slab-svd" --generate --rows "$SVD_ROWS" --cols 1000 --json \
      $flag >"$OUT/tmp.log" 2>&1
    echo "(rc=$?)" >>"$OUT/tmp.log"
    cat "$OUT/tmp.log" >>"$log"
    note_fallbacks "slab-svd -n $1 $2" "$OUT/tmp.log"
    grep '^{"app"' "$OUT/tmp.log" | tail -1 >"$OUT/svd-$1-$2.json"
  done
  rm -f "$OUT/tmp.log"
  local line
  line=$(python3 - "$OUT" <<'EOF'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        return json.loads(open(os.path.join(out, name)).read())
    except (OSError, ValueError):
        return None
ref = load("svd-1-host.json")
res = {}
for name in ("svd-1-device.json", "svd-2-device.json"):
    got = load(name)
    key = name[4:-5]
    if not ref or not got:
        res[key] = "missing"
        continue
    rc, gc = ref["checks"], got["checks"]
    bad = [k for k in ("s1", "s2", "s3", "s4", "s5", "sum_s") if abs(rc[k] - gc[k]) > 1e-10 * abs(rc["s1"])]
    res[key] = "agree" if not bad and gc.get("resid_rows0_1000", 1) < 1e-10 else "differ " + ",".join(bad)
    res[key + "_s"] = got["seconds"]
if ref:
    res["host_s"] = ref["seconds"]
print(json.dumps(res))
EOF
)
  rm -f "$OUT"/svd-*.json
  echo "SVD_SUMMARY $line" >>"$log"
  if grep -q missing <<<"$line" || [ -z "$line" ]; then
    result "svd host vs device" FAIL "a run failed (see 05-svd.log): $line"
  elif [ "$DEVICE_COUNT" = 0 ]; then
    result "svd host vs device" SKIP "no CUDA device (the device runs ran on the host); $line"
  elif [ "$SLAB_SEES_GPU" = 0 ]; then
    result "svd host vs device" FAIL "slab found no device although nvidia-smi lists one; $line"
  elif grep -q '"1-device": "agree"' <<<"$line" && grep -q '"2-device": "agree"' <<<"$line"; then
    result "svd host vs device" PASS "$line"
  else
    result "svd host vs device" FAIL "$line"
  fi
}

run_checks() {
  local t0=$SECONDS
  unpack_bundle "${1:-$here/.device}"
  mkdir -p "$OUT"
  local env_log=$OUT/01-env.log tests_log=$OUT/02-tests.log info_log=$OUT/04-info.log
  : >"$tests_log"
  {
    note "date $(date -u +%FT%TZ); host $(hostname); $(uname -srm); bundle $B (unpacked in $((SECONDS - t0)) s)"
    local have need
    have=$(ldd --version 2>&1 | head -1 | grep -o '[0-9]*\.[0-9]*$')
    need=$(sed 's/GLIBC_//' "$B/GLIBC_NEEDED" 2>/dev/null)
    note "glibc $have here; the bundle needs $need"
    [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ] ||
      echo "WARNING: glibc $have is older than $need: bundled libraries may fail to load (see ldd below)"
    grep PRETTY_NAME /etc/os-release 2>/dev/null
    note "nvidia-smi"
    timeout 30 nvidia-smi 2>&1 || echo "nvidia-smi: not available"
    note "CUDA libraries"
  } >"$env_log" 2>&1
  CUDA_DIRS=$(find_cuda_libs 2>>"$env_log")
  bundle_env
  {
    echo "  search path: $CUDA_DIRS"
    note "driver library: $(ldconfig -p 2>/dev/null | grep -m1 'libcuda.so.1 ' | awk '{print $NF}')" \
      "$(ls /usr/local/nvidia/lib64/libcuda.so.1 2>/dev/null)"
    note "ldd slab-info with the bundle"
    with_bundle ldd "$B/bin/slab-info" | grep -v "$B/lib"
    note "python3: $(command -v python3) $(python3 --version 2>&1)"
  } >>"$env_log" 2>&1
  DEVICE_COUNT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "$DEVICE_COUNT" -gt 0 ] 2>/dev/null || DEVICE_COUNT=0
  cat "$env_log"
  note "estimate (seconds): $ESTIMATE; total budget $TOTAL_BUDGET s"

  local n
  SLAB_SEES_GPU=0
  # d. (first: device detection decides what the later steps expect) slab-info at 1 and 2 ranks: device,
  # comm path, interconnect bandwidth of host buffers.
  : >"$info_log"
  for n in 1 2; do
    note "slab-info at $n rank(s)" | tee -a "$info_log"
    mpi $n "$B/bin/slab-info" --bytes 64MiB >>"$info_log" 2>&1
    local rc=$?
    mpi $n "$B/bin/slab-info" --no-bench --json >"$OUT/tmp.log" 2>&1
    local rc2=$?
    cat "$OUT/tmp.log" >>"$info_log"
    note_fallbacks "slab-info -n $n" "$OUT/tmp.log"
    local path devices
    path=$(grep -o '"device_path":"[^"]*"' "$OUT/tmp.log")
    devices=$(awk '/^rank  host/ {on = 1; next} on && NF == 0 {on = 0} on {$2 = ""; print}' "$info_log" | tail -n $n |
      tr -s ' ' | paste -sd ';')
    rm -f "$OUT/tmp.log"
    [ $n = 1 ] && [ -n "$path" ] && ! grep -q '"host (MPI)"' <<<"$path" && SLAB_SEES_GPU=1
    if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && { [ "$DEVICE_COUNT" = 0 ] || ! grep -q '"host (MPI)"' <<<"$path"; }; then
      result "slab-info -n $n" "$([ "$DEVICE_COUNT" = 0 ] && echo SKIP || echo PASS)" "$path; ranks: $devices"
    else
      result "slab-info -n $n" FAIL "rc=$rc/$rc2 $path (nvidia-smi lists $DEVICE_COUNT GPU(s))"
    fi
  done

  # a. + b. the device tests, then the runtime tests (device detection, limits from the device's memory).
  for n in 1 2; do gtest_step test_gpu $n "$tests_log"; done
  for n in 1 2; do gtest_step test_runtime $n "$tests_log"; done

  # b2. the device kernels against their reference instantiations, then their throughput.
  kernels_step

  # b2'. compute-sanitizer memcheck of the kernel entry points on small sizes.
  memcheck_step

  # b3. frames on GPU memory against the host kernels, bitwise (1 rank, and 2 sharing the GPU).
  if [ -x "$B/bin/test_frame_device_paths" ]; then
    for n in 1 2; do
      gtest_step test_frame_device_paths $n "$tests_log" --gtest_filter='FrameDevicePaths.GpuMemory*'
    done
  else
    result "test_frame_device_paths" SKIP "not in the bundle (build test_frame_device_paths before bundling)"
  fi

  # c. gram benchmark: slab host vs device memory, and torch/cupy.
  gram_step

  # c2. slab-svd on device memory (cuSOLVER) against the host path.
  svd_step

  # c3. array and frame apps on device memory, with their host fallbacks.
  device_apps_step

  {
    echo
    note "SUMMARY (logs: 01-env.log 02-tests.log 03-gram.log 04-info.log 05-svd.log 06-kernels.log 07-apps.log" \
      "08-memcheck.log;" \
      "$SECONDS s)"
    printf '%s\n' "${summary[@]}"
    echo
    note "HOST FALLBACKS per app run (--json \"fallbacks\": operations without a device path that ran on the host)"
    printf '%s\n' "${fallbacks[@]}"
  } | tee "$OUT/00-summary.log"
}

if [ "$mode" = bundle ]; then
  make_bundle "$@"
else
  run_checks "$@"
fi
