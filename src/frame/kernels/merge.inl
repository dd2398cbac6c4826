#pragma once
// The composition of merge.hpp. count(): the build side's sorted segments (segments.inl) or its counting sort
// over the dense key range (prepare(), or prepare_direct(), into a PreparedBuild that a broadcast join keeps for
// all its probe batches; count() prepares into scratch each time), each probe key's first match and match count by
// binary search (or table lookup), output offsets by an exclusive scan of the per-probe output counts, and for outer
// joins the unmatched build rows in row order. fill(): one functor call per output pair, which finds its probe row by
// binary search in the offsets (balanced however skewed the keys are).
#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <string>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/merge.hpp"
#include "frame/kernels/segments.inl"
#include "frame/kernels/sort_perm.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

/// The workspace: per probe row its first match (-1: none) and output offset, the build rows in key order,
/// the unmatched build rows in row order and their count.
struct JoinWorkspace {
  std::int64_t* lo;          // probe_n
  std::int64_t* off;         // probe_n + 1
  std::int64_t* sorted;      // build_n
  std::int64_t* unmatched;   // build_n
  std::int64_t* nunmatched;  // 1
  static std::size_t align(std::size_t b) { return (b + 255) / 256 * 256; }
  static std::size_t bytes(std::int64_t np, std::int64_t nb) {
    const auto p = static_cast<std::size_t>(np > 0 ? np : 0), q = static_cast<std::size_t>(nb > 0 ? nb : 0);
    return align(8 * p) + align(8 * (p + 1)) + 2 * align(8 * q) + align(8);
  }
  JoinWorkspace(void* ws, std::int64_t np, std::int64_t nb) {
    const auto p = static_cast<std::size_t>(np > 0 ? np : 0), q = static_cast<std::size_t>(nb > 0 ? nb : 0);
    auto* c = static_cast<char*>(ws);
    lo = reinterpret_cast<std::int64_t*>(c);
    c += align(8 * p);
    off = reinterpret_cast<std::int64_t*>(c);
    c += align(8 * (p + 1));
    sorted = reinterpret_cast<std::int64_t*>(c);
    c += align(8 * q);
    unmatched = reinterpret_cast<std::int64_t*>(c);
    c += align(8 * q);
    nunmatched = reinterpret_cast<std::int64_t*>(c);
  }
};

/// A probe key's matches among the m sorted build keys: lower and upper bound, lexicographically.
struct ProbeSorted {
  const std::uint64_t* probe[kMaxKeyWords];
  const std::uint64_t* build[kMaxKeyWords];  // sorted
  int width;
  std::int64_t m;
  const std::uint8_t* keep;
  bool keep_probe;
  std::int64_t* lo;
  std::int64_t* count;  // output pairs of the probe row

  /// -1, 0, 1: build position k's key compared with probe row i's.
  SLAB_HD int compare(std::int64_t k, std::int64_t i) const {
    for (int w = 0; w < width; ++w) {
      const std::uint64_t a = build[w][k], b = probe[w][i];
      if (a != b) return a < b ? -1 : 1;
    }
    return 0;
  }
  SLAB_HD void operator()(std::int64_t i) const {
    std::int64_t first = 0, matches = 0;
    if (!keep || keep[i]) {
      std::int64_t a = 0, b = m;  // lower bound: first k with build[k] >= probe[i]
      while (a < b) {
        const std::int64_t mid = (a + b) / 2;
        if (compare(mid, i) < 0)
          a = mid + 1;
        else
          b = mid;
      }
      first = a;
      b = m;  // upper bound: first k with build[k] > probe[i]
      while (a < b) {
        const std::int64_t mid = (a + b) / 2;
        if (compare(mid, i) <= 0)
          a = mid + 1;
        else
          b = mid;
      }
      matches = a - first;
    }
    lo[i] = matches > 0 ? first : -1;
    count[i] = matches > 0 ? matches : (keep_probe ? 1 : 0);
  }
};

/// The direct array's sort key: key - lo in range, else `span` (after every key).
struct DirectSlot {
  const std::int64_t* keys;
  const std::uint8_t* valid;
  std::int64_t lo;
  std::uint64_t span;
  SLAB_HD std::uint64_t operator()(std::int64_t i) const {
    const std::uint64_t k = static_cast<std::uint64_t>(keys[i]) - static_cast<std::uint64_t>(lo);
    return k < span && (!valid || valid[i]) ? k : span;
  }
};

struct ProbeDirect {
  JoinDirectKeys probe;
  std::int64_t lo;
  std::uint64_t span;
  const std::int64_t* table;  // span + 1: first sorted position of each slot
  bool keep_probe;
  std::int64_t* first;
  std::int64_t* count;
  SLAB_HD void operator()(std::int64_t i) const {
    const std::uint64_t k = static_cast<std::uint64_t>(probe.keys[i]) - static_cast<std::uint64_t>(lo);
    std::int64_t matches = 0, at = 0;
    if (k < span && (!probe.valid || probe.valid[i])) {
      at = table[k];
      matches = table[k + 1] - at;
    }
    first[i] = matches > 0 ? at : -1;
    count[i] = matches > 0 ? matches : (keep_probe ? 1 : 0);
  }
};

/// Outer joins: the start of a matched key's run of sorted build positions is marked.
struct MarkMatched {
  const std::int64_t* lo;
  std::uint8_t* marked;
  SLAB_HD void operator()(std::int64_t i) const {
    if (lo[i] >= 0) marked[lo[i]] = 1;  // every writer stores the same value: no atomic needed
  }
};
/// Sorted position k's run start in the key-word path: the segment holding k.
struct SegmentStart {
  const std::int64_t* offsets;
  std::int64_t groups;
  SLAB_HD std::int64_t operator()(std::int64_t k) const {
    return offsets[slab::kernels::segment_holding(offsets, groups, k)];
  }
};
/// ... and in the direct path: the table entry of its slot.
struct SlotStart {
  const std::uint64_t* slots;
  const std::int64_t* table;
  SLAB_HD std::int64_t operator()(std::int64_t k) const { return table[slots[k]]; }
};
struct FlagUnmatched {
  const std::int64_t* sorted;
  const std::int64_t* start;
  const std::uint8_t* marked;
  std::uint8_t* unmatched;  // by build row
  SLAB_HD void operator()(std::int64_t k) const { unmatched[sorted[k]] = !marked[start[k]]; }
};

struct FillPairs {
  const std::int64_t* lo;
  const std::int64_t* off;
  const std::int64_t* sorted;
  const std::int64_t* unmatched;
  std::int64_t probe_n;
  std::int64_t* probe_rows;
  std::int64_t* build_rows;
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t paired = off[probe_n];
    if (j >= paired) {
      probe_rows[j] = -1;
      build_rows[j] = unmatched[j - paired];
      return;
    }
    // The last probe row a with off[a] <= j: rows without output have off[a] = off[a + 1] and are skipped.
    const std::int64_t a = slab::kernels::segment_holding(off, probe_n, j);
    probe_rows[j] = a;
    build_rows[j] = lo[a] >= 0 ? sorted[lo[a] + (j - off[a])] : -1;
  }
};

/// The common tail of both count paths: output offsets, unmatched build rows, the pair count.
template <class B>
std::int64_t finish_count(const Exec& exec, B& b, JoinWorkspace& ws, std::int64_t np, std::int64_t nb, std::int64_t m,
                          std::int64_t* count, const std::int64_t* run_start, JoinSides kind) {
  b.zero(count + np, sizeof(std::int64_t));
  thrust::exclusive_scan(b.policy(), count, count + np + 1, ws.off);
  std::int64_t paired = 0, nunmatched = 0;
  b.to_host(&paired, ws.off + np, sizeof paired);
  if (kind.keep_build && nb > 0) {
    using slab::kernels::Scratch;
    Scratch<std::uint8_t, B> marked(b, m > 0 ? m : 1), unmatched(b, nb);
    thrust::counting_iterator<std::int64_t> i(0);
    b.zero(marked.get(), static_cast<std::size_t>(m > 0 ? m : 1));
    thrust::for_each(b.policy(), i, i + np, MarkMatched{ws.lo, marked.get()});
    thrust::fill(b.policy(), unmatched.get(), unmatched.get() + nb, std::uint8_t{1});
    thrust::for_each(b.policy(), i, i + m, FlagUnmatched{ws.sorted, run_start, marked.get(), unmatched.get()});
    nunmatched = GatherKernels<B>::select_rows(exec, unmatched.get(), nb, ws.unmatched);
  }
  b.to_backend(ws.nunmatched, &nunmatched, sizeof nunmatched);
  return paired + nunmatched;
}

}  // namespace detail

template <class B>
std::size_t JoinKernels<B>::workspace_bytes(std::int64_t probe_n, std::int64_t build_n) {
  return detail::JoinWorkspace::bytes(probe_n, build_n);
}

template <class B>
std::size_t JoinKernels<B>::prepared_bytes(std::int64_t build_n, int width, std::uint64_t span) {
  using detail::JoinWorkspace;
  const auto q = static_cast<std::size_t>(build_n > 0 ? build_n : 0);
  if (span > 0) return 2 * JoinWorkspace::align(8 * q) + JoinWorkspace::align(8 * (span + 1));
  return (1 + static_cast<std::size_t>(width)) * JoinWorkspace::align(8 * q) + JoinWorkspace::align(8 * (q + 1));
}

template <class B>
PreparedBuild JoinKernels<B>::prepared_at(void* memory, std::int64_t build_n, int width, std::uint64_t span) {
  using detail::JoinWorkspace;
  PreparedBuild p;
  p.n = build_n > 0 ? build_n : 0;
  p.width = span > 0 ? 0 : width;
  p.span = span;
  const auto q = static_cast<std::size_t>(p.n);
  auto* c = static_cast<char*>(memory);
  auto take = [&c](std::size_t bytes) {
    char* at = c;
    c += JoinWorkspace::align(bytes);
    return at;
  };
  p.sorted = reinterpret_cast<std::int64_t*>(take(8 * q));
  if (span > 0) {
    p.table = reinterpret_cast<std::int64_t*>(take(8 * (span + 1)));
    p.slots = reinterpret_cast<std::uint64_t*>(take(8 * q));
    return p;
  }
  for (int w = 0; w < width; ++w) p.words[w] = reinterpret_cast<std::uint64_t*>(take(8 * q));
  p.offsets = reinterpret_cast<std::int64_t*>(take(8 * (q + 1)));
  return p;
}

template <class B>
void JoinKernels<B>::prepare(const Exec& exec, const JoinKeys& build, const int* bits, PreparedBuild& at) {
  SLAB_EXPECTS(at.width >= 1 && at.width <= kMaxKeyWords, InvalidArgument,
               "join kernels: " + std::to_string(at.width) + " key words (1 to " + std::to_string(kMaxKeyWords) + ")");
  B b(exec);
  detail::Segments<B> seg(exec, b, build.words, at.width, bits, at.n, build.keep);
  at.m = seg.kept;
  at.groups = seg.groups;
  const auto bytes = static_cast<std::size_t>(at.m) * sizeof(std::int64_t);
  if (at.m > 0) {
    b.copy(at.sorted, seg.rows.get(), bytes);
    for (int w = 0; w < at.width; ++w) b.copy(at.words[w], seg.words[static_cast<std::size_t>(w)].get(), bytes);
  }
  b.copy(at.offsets, seg.offsets.get(), static_cast<std::size_t>(at.groups + 1) * sizeof(std::int64_t));
}

template <class B>
void JoinKernels<B>::prepare_direct(const Exec& exec, const JoinDirectKeys& build, std::int64_t lo, PreparedBuild& at) {
  const std::uint64_t span = at.span;
  SLAB_EXPECTS(span >= 1 && span <= (1ull << 27), InvalidArgument,
               "join kernels: a direct array of " + std::to_string(span) + " slots (1 to 2^27)");
  B b(exec);
  const std::int64_t nb = at.n;
  at.lo = lo;
  // The build rows by slot, stably: a counting sort over the slot's bits; rows without a slot sort last.
  slab::kernels::Scratch<std::uint64_t, B> slot(b, nb);
  slab::kernels::Scratch<std::int64_t, B> order(b, nb);
  thrust::counting_iterator<std::int64_t> i(0);
  if (nb > 0) {
    thrust::transform(b.policy(), i, i + nb, slot.get(), detail::DirectSlot{build.keys, build.valid, lo, span});
    thrust::sequence(b.policy(), order.get(), order.get() + nb);
    b.sort_pairs(slot.get(), at.slots, order.get(), at.sorted, nb, 0, bits_for(span));
  }
  thrust::counting_iterator<std::uint64_t> slots(0);
  thrust::lower_bound(b.policy(), at.slots, at.slots + nb, slots, slots + span + 1, at.table);
  b.to_host(&at.m, at.table + span, sizeof at.m);  // build rows with a slot
}

template <class B>
std::int64_t JoinKernels<B>::count_prepared(const Exec& exec, const JoinKeys& probe, const PreparedBuild& build,
                                            JoinSides kind, void* workspace) {
  SLAB_EXPECTS(!build.direct(), InvalidArgument, "join kernels: a direct array's build side by key words (internal)");
  B b(exec);
  const std::int64_t np = probe.n > 0 ? probe.n : 0, nb = build.n, m = build.m;
  detail::JoinWorkspace ws(workspace, np, nb);
  using slab::kernels::Scratch;
  if (m > 0) b.copy(ws.sorted, build.sorted, static_cast<std::size_t>(m) * sizeof(std::int64_t));
  Scratch<std::int64_t, B> count(b, np + 1), start(b, kind.keep_build ? m : 0);
  thrust::counting_iterator<std::int64_t> i(0);
  if (np > 0) {
    detail::ProbeSorted f{};
    for (int w = 0; w < build.width; ++w) {
      f.probe[w] = probe.words[w];
      f.build[w] = m > 0 ? build.words[w] : nullptr;
    }
    f.width = build.width;
    f.m = m;
    f.keep = probe.keep;
    f.keep_probe = kind.keep_probe;
    f.lo = ws.lo;
    f.count = count.get();
    thrust::for_each(b.policy(), i, i + np, f);
  }
  if (kind.keep_build && m > 0)
    thrust::transform(b.policy(), i, i + m, start.get(), detail::SegmentStart{build.offsets, build.groups});
  return detail::finish_count(exec, b, ws, np, nb, m, count.get(), start.get(), kind);
}

template <class B>
std::int64_t JoinKernels<B>::count_prepared_direct(const Exec& exec, const JoinDirectKeys& probe,
                                                   const PreparedBuild& build, JoinSides kind, void* workspace) {
  SLAB_EXPECTS(build.direct(), InvalidArgument, "join kernels: a key-word build side as a direct array (internal)");
  B b(exec);
  const std::int64_t np = probe.n > 0 ? probe.n : 0, nb = build.n, m = build.m;
  detail::JoinWorkspace ws(workspace, np, nb);
  using slab::kernels::Scratch;
  if (nb > 0) b.copy(ws.sorted, build.sorted, static_cast<std::size_t>(nb) * sizeof(std::int64_t));
  Scratch<std::int64_t, B> count(b, np + 1), start(b, kind.keep_build ? m : 0);
  thrust::counting_iterator<std::int64_t> i(0);
  if (np > 0)
    thrust::for_each(
        b.policy(), i, i + np,
        detail::ProbeDirect{probe, build.lo, build.span, build.table, kind.keep_probe, ws.lo, count.get()});
  if (kind.keep_build && m > 0)
    thrust::transform(b.policy(), i, i + m, start.get(), detail::SlotStart{build.slots, build.table});
  return detail::finish_count(exec, b, ws, np, nb, m, count.get(), start.get(), kind);
}

template <class B>
std::int64_t JoinKernels<B>::count(const Exec& exec, const JoinKeys& probe, const JoinKeys& build, int width,
                                   const int* bits, JoinSides kind, void* workspace) {
  SLAB_EXPECTS(width >= 1 && width <= kMaxKeyWords, InvalidArgument,
               "join kernels: " + std::to_string(width) + " key words (1 to " + std::to_string(kMaxKeyWords) + ")");
  B b(exec);
  const std::int64_t nb = build.n > 0 ? build.n : 0;
  slab::kernels::Scratch<unsigned char, B> memory(b, static_cast<std::int64_t>(prepared_bytes(nb, width, 0)));
  PreparedBuild prepared = prepared_at(memory.get(), nb, width, 0);
  prepare(exec, build, bits, prepared);
  return count_prepared(exec, probe, prepared, kind, workspace);
}

template <class B>
std::int64_t JoinKernels<B>::count_direct(const Exec& exec, const JoinDirectKeys& probe, const JoinDirectKeys& build,
                                          std::int64_t lo, std::uint64_t span, JoinSides kind, void* workspace) {
  SLAB_EXPECTS(span >= 1 && span <= (1ull << 27), InvalidArgument,
               "join kernels: a direct array of " + std::to_string(span) + " slots (1 to 2^27)");
  B b(exec);
  const std::int64_t nb = build.n > 0 ? build.n : 0;
  slab::kernels::Scratch<unsigned char, B> memory(b, static_cast<std::int64_t>(prepared_bytes(nb, 0, span)));
  PreparedBuild prepared = prepared_at(memory.get(), nb, 0, span);
  prepare_direct(exec, build, lo, prepared);
  return count_prepared_direct(exec, probe, prepared, kind, workspace);
}

template <class B>
void JoinKernels<B>::fill(const Exec& exec, std::int64_t probe_n, std::int64_t build_n, JoinSides kind,
                          const void* workspace, std::int64_t pairs, std::int64_t* probe_rows,
                          std::int64_t* build_rows) {
  (void)kind;
  if (pairs <= 0) return;
  B b(exec);
  detail::JoinWorkspace ws(const_cast<void*>(workspace), probe_n, build_n);
  thrust::counting_iterator<std::int64_t> j(0);
  thrust::for_each(
      b.policy(), j, j + pairs,
      detail::FillPairs{ws.lo, ws.off, ws.sorted, ws.unmatched, probe_n > 0 ? probe_n : 0, probe_rows, build_rows});
}

namespace detail {

/// One output row of JoinKernels::gather.
struct JoinGatherRow {
  JoinSource first, second;
  const std::int64_t* first_rows;
  const std::int64_t* second_rows;  // nullptr: no second source
  ElementType type;
  void* out;
  std::uint8_t* out_valid;
  SLAB_HD void operator()(std::int64_t i) const {
    const bool from_second = second_rows && first_rows[i] < 0;
    const JoinSource& src = from_second ? second : first;
    const std::int64_t r = from_second ? second_rows[i] : first_rows[i];
    const bool ok = r >= 0 && (!src.column.valid || src.column.valid[r]);
    if (out_valid) out_valid[i] = ok ? 1 : 0;
    switch (type) {
      case ElementType::string: {
        std::int32_t v = r >= 0 ? static_cast<const std::int32_t*>(src.column.data)[r] : -1;
        if (v >= 0 && src.remap) v = static_cast<std::int32_t>(src.remap[v]);
        static_cast<std::int32_t*>(out)[i] = ok ? v : -1;
        break;
      }
      case ElementType::boolean:
        static_cast<std::uint8_t*>(out)[i] = r >= 0 ? static_cast<const std::uint8_t*>(src.column.data)[r] : 0;
        break;
      default: {  // the 8-byte types
        std::uint64_t v = r >= 0 ? static_cast<const std::uint64_t*>(src.column.data)[r] : 0;
        if (!ok && type == ElementType::float64) v = 0x7FF8000000000000ull;
        static_cast<std::uint64_t*>(out)[i] = v;
        break;
      }
    }
  }
};

struct IsMissing {
  SLAB_HD bool operator()(std::int64_t r) const { return r < 0; }
};

}  // namespace detail

template <class B>
bool JoinKernels<B>::any_missing(const Exec& exec, const std::int64_t* rows, std::int64_t n) {
  if (n <= 0) return false;
  B b(exec);
  return thrust::count_if(b.policy(), rows, rows + n, detail::IsMissing{}) > 0;
}

template <class B>
void JoinKernels<B>::gather(const Exec& exec, const JoinSource& first, const std::int64_t* first_rows,
                            const JoinSource* second, const std::int64_t* second_rows, std::int64_t n, void* out,
                            std::uint8_t* out_valid) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n,
                   detail::JoinGatherRow{first, second ? *second : JoinSource{}, first_rows,
                                         second ? second_rows : nullptr, first.column.type, out, out_valid});
}

}  // namespace slab::frame::kernels
