#!/usr/bin/env bash
# check_install.sh BUILD_DIR CONSUMER_SOURCE WORK_DIR MPIEXEC
# Install slab into a prefix; an installed app runs from there (its RPATH finds libslab, no LD_LIBRARY_PATH); an
# outside project finds slab with find_package(slab), builds and runs; and it configures on a machine without the
# CUDA toolkit too (CUDAToolkit hidden from find_package), as a CPU-only consumer of a CUDA build must.
set -euo pipefail
build="$1" src="$2" work="$3" mpiexec="$4"
rm -rf "$work" "$work.install.log"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
unset LD_LIBRARY_PATH

echo "== an installed app, run from the prefix"
"$mpiexec" --oversubscribe -n 2 "$work/prefix/bin/slab-info" --no-bench --json | tee "$work/info.json"
grep -q '"app":"slab-info"' "$work/info.json"

echo "== an outside project: find_package(slab)"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$work/build"
"$mpiexec" --oversubscribe -n 2 "$work/build/consumer"

echo "== the same project where no CUDA toolkit can be found"
cmake -S "$src" -B "$work/build-nocuda" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_CUDA=TRUE
cmake --build "$work/build-nocuda"
"$mpiexec" --oversubscribe -n 1 "$work/build-nocuda/consumer"
