#pragma once
// Sorted segments of equal keys, shared by the groupby, unique and value_counts compositions: kept rows sorted
// stably by their key words, one segment per distinct key, in key order. Internal to the .inl files.
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <vector>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/columns.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/sort_perm.hpp"

namespace slab::frame::kernels::detail {

struct SegmentHead {
  const std::uint64_t* words[kMaxKeyWords];
  int width;
  std::uint8_t* head;
  SLAB_HD void operator()(std::int64_t j) const {
    bool h = j == 0;
    for (int w = 0; w < width && !h; ++w) h = words[w][j] != words[w][j - 1];
    head[j] = h;
  }
};

struct SegmentLength {
  const std::int64_t* offsets;
  SLAB_HD std::int64_t operator()(std::int64_t g) const { return offsets[g + 1] - offsets[g]; }
};

/// The segments of n keys: rows (original row index) in sorted order, the sorted key words, and segment offsets.
template <class B>
struct Segments {
  using I64 = slab::kernels::Scratch<std::int64_t, B>;
  using U64 = slab::kernels::Scratch<std::uint64_t, B>;
  std::int64_t kept = 0;    ///< rows in segments (m)
  std::int64_t groups = 0;  ///< segments (G)
  I64 rows;                 ///< m: original row of each sorted position
  std::vector<U64> words;   ///< width x m sorted key words
  I64 offsets;              ///< G + 1: start of each segment in sorted positions, then m

  Segments(const Exec& exec, B& b, const std::uint64_t* const* keys, int width, const int* bits, std::int64_t n,
           const std::uint8_t* keep)
      : rows(b, n), offsets(b, n + 1) {
    // 1. The kept rows and their words.
    std::vector<U64> kept_words;
    const std::uint64_t* kw[kMaxKeyWords] = {};
    I64 kept_rows(b, keep ? n : 0);
    if (keep) {
      kept = GatherKernels<B>::select_rows(exec, keep, n, kept_rows.get());
      std::uint64_t* out[kMaxKeyWords] = {};
      for (int w = 0; w < width; ++w) {
        kept_words.emplace_back(b, kept);
        out[w] = kept_words.back().get();
      }
      SortKernels<B>::gather_words(exec, keys, width, kept_rows.get(), kept, out);
      for (int w = 0; w < width; ++w) kw[w] = out[w];
    } else {
      kept = n;
      for (int w = 0; w < width; ++w) kw[w] = keys[w];
    }
    if (kept == 0) {
      groups = 0;
      b.zero(offsets.get(), sizeof(std::int64_t));
      return;
    }
    // 2. Stable sort; the sorted words and original rows.
    I64 perm(b, kept);
    SortKernels<B>::permutation(exec, kw, width, bits, kept, perm.get());
    std::uint64_t* sw[kMaxKeyWords] = {};
    for (int w = 0; w < width; ++w) {
      words.emplace_back(b, kept);
      sw[w] = words.back().get();
    }
    SortKernels<B>::gather_words(exec, kw, width, perm.get(), kept, sw);
    if (keep)
      thrust::gather(b.policy(), perm.get(), perm.get() + kept, kept_rows.get(), rows.get());
    else
      b.copy(rows.get(), perm.get(), static_cast<std::size_t>(kept) * sizeof(std::int64_t));
    // 3. Segment heads and their offsets.
    slab::kernels::Scratch<std::uint8_t, B> head(b, kept);
    SegmentHead h{};
    for (int w = 0; w < width; ++w) h.words[w] = sw[w];
    h.width = width;
    h.head = head.get();
    thrust::counting_iterator<std::int64_t> j(0);
    thrust::for_each(b.policy(), j, j + kept, h);
    groups = GatherKernels<B>::select_rows(exec, head.get(), kept, offsets.get());
    b.to_backend(offsets.get() + groups, &kept, sizeof kept);
  }

  /// out[w][g] = the key words of segment g.
  void group_keys(const Exec& exec, int width, std::uint64_t* const* out) {
    const std::uint64_t* sw[kMaxKeyWords] = {};
    for (int w = 0; w < width; ++w) sw[w] = words[static_cast<std::size_t>(w)].get();
    SortKernels<B>::gather_words(exec, sw, width, offsets.get(), groups, out);
  }
};

/// The groups' keys, sizes and first rows, as asked for by `groups`.
template <class B>
void write_groups(const Exec& exec, B& b, Segments<B>& seg, int width, const GroupsOut& groups) {
  thrust::counting_iterator<std::int64_t> i(0);
  if (seg.groups == 0) return;
  if (groups.keys) seg.group_keys(exec, width, groups.keys);
  if (groups.size) thrust::transform(b.policy(), i, i + seg.groups, groups.size, SegmentLength{seg.offsets.get()});
  if (groups.first_row)
    thrust::gather(b.policy(), seg.offsets.get(), seg.offsets.get() + seg.groups, seg.rows.get(), groups.first_row);
}

}  // namespace slab::frame::kernels::detail
