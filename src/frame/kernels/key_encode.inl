#pragma once
// The composition of key_encode.hpp: one pass over the rows per entry point, every column's type switch and
// mask test inside the per-row functor (uniform across a warp: all rows of a column share the type).
// Included by the instantiating TUs after their backend header.
#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <limits>
#include <string>

#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

/// KeyEncoder::value_words for one row: the value word of key column `key` (fill for a null) and whether the
/// row's key is null there.
SLAB_HD_INLINE std::uint64_t key_value_word(const KeyColumn& key, std::int64_t i, std::uint64_t fill, bool& null) {
  const ColumnView& c = key.column;
  std::uint64_t w = 0;
  null = false;
  switch (c.type) {
    case ElementType::int64:
    case ElementType::timestamp:
      w = int_word(static_cast<const std::int64_t*>(c.data)[i]);
      break;
    case ElementType::float64: {
      const double v = static_cast<const double*>(c.data)[i];
      null = v != v;
      w = null ? fill : float_word(v);
      break;
    }
    case ElementType::boolean:
      w = static_cast<const std::uint8_t*>(c.data)[i] ? 1 : 0;
      break;
    case ElementType::string: {
      const std::int32_t v = static_cast<const std::int32_t*>(c.data)[i];
      const std::int64_t code = v < 0 ? -1 : key.remap ? key.remap[v] : v;
      null = code < 0;
      w = null ? fill : static_cast<std::uint64_t>(code);
      break;
    }
    default:
      break;
  }
  if (c.valid && !c.valid[i]) {
    w = fill;
    null = true;
  }
  return w;
}

struct EncodeRow {
  KeyColumn keys[kMaxKeyColumns];
  KeyLayout layout;
  std::uint64_t* words[kMaxKeyWords];
  std::uint8_t* keep;

  SLAB_HD void operator()(std::int64_t i) const {
    bool any_null = false;
    std::uint64_t packed = 0;
    for (int k = 0; k < layout.ncols; ++k) {
      const int vw = layout.value_word(k);
      bool null = false;
      const std::uint64_t w = key_value_word(keys[k], i, layout.lo[vw], null);
      any_null |= null;
      if (layout.packed) {
        // Mixed radix, in the host's order: the null flag digit, then the value digit.
        if (!layout.dropna) packed = k == 0 ? static_cast<std::uint64_t>(null) : packed * layout.span[vw - 1] + null;
        const std::uint64_t digit = w - layout.lo[vw];
        packed = k == 0 && layout.dropna ? digit : packed * layout.span[vw] + digit;
      } else {
        if (!layout.dropna) words[vw - 1][i] = null;
        words[vw][i] = w;
      }
    }
    if (layout.packed) words[0][i] = packed;
    keep[i] = layout.dropna ? static_cast<std::uint8_t>(!any_null) : 1;
  }
};

struct WordRange {
  std::uint64_t min, max;
};
struct RowWordRange {
  KeyColumn key;
  SLAB_HD WordRange operator()(std::int64_t i) const {
    bool null = false;
    const std::uint64_t w = key_value_word(key, i, 0, null);
    return null ? WordRange{~0ull, 0} : WordRange{w, w};
  }
};
struct MergeWordRange {
  SLAB_HD WordRange operator()(const WordRange& a, const WordRange& b) const {
    return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
};

struct SortWordsRow {
  SortColumn cols[kMaxKeyColumns];
  int ncols;
  bool nulls_first;
  std::uint64_t* words[kMaxKeyWords];

  SLAB_HD void operator()(std::int64_t i) const {
    for (int k = 0; k < ncols; ++k) {
      const ColumnView& c = cols[k].column;
      bool null = c.valid && !c.valid[i];
      std::uint64_t v = 0;
      switch (c.type) {
        case ElementType::int64:
        case ElementType::timestamp:
          v = int_word(static_cast<const std::int64_t*>(c.data)[i]);
          break;
        case ElementType::float64: {
          const double x = static_cast<const double*>(c.data)[i];
          null = null || x != x;
          v = float_word(x);
          break;
        }
        case ElementType::boolean:
          v = static_cast<const std::uint8_t*>(c.data)[i] ? 1 : 0;
          break;
        case ElementType::string: {
          const std::int32_t code = static_cast<const std::int32_t*>(c.data)[i];
          null = null || code < 0;
          v = static_cast<std::uint64_t>(static_cast<std::uint32_t>(code));
          break;
        }
        default:
          break;
      }
      words[2 * k][i] = sort_null_word(null, nulls_first);
      words[2 * k + 1][i] = sort_value_word(v, null, cols[k].ascending);
    }
  }
};

inline void check_key_columns(int ncols, const char* what) {
  SLAB_EXPECTS(ncols >= 1 && ncols <= kMaxKeyColumns, InvalidArgument,
               std::string(what) + ": " + std::to_string(ncols) + " key columns (the kernels take 1 to " +
                   std::to_string(kMaxKeyColumns) + ")");
}

/// One key's columns from its words (KeyEncoder::unpack, then write_result's per-type decode).
struct DecodeRow {
  const std::uint64_t* words[kMaxKeyWords];
  KeyLayout layout;
  ElementType types[kMaxKeyColumns];
  void* out[kMaxKeyColumns];
  std::uint8_t* valid[kMaxKeyColumns];
  SLAB_HD void operator()(std::int64_t i) const {
    std::uint64_t w[kMaxKeyWords];
    const int nw = layout.nwords();
    if (layout.packed) {
      std::uint64_t p = words[0][i];
      for (int k = nw - 1; k >= 0; --k) {
        w[k] = p % layout.span[k] + layout.lo[k];
        p /= layout.span[k];
      }
    } else {
      for (int k = 0; k < nw; ++k) w[k] = words[k][i];
    }
    for (int k = 0; k < layout.ncols; ++k) {
      const std::uint64_t v = w[layout.value_word(k)];
      const bool null = !layout.dropna && w[layout.value_word(k) - 1] != 0;
      if (!layout.dropna && valid[k]) valid[k][i] = null ? 0 : 1;
      switch (types[k]) {
        case ElementType::int64:
        case ElementType::timestamp:
          static_cast<std::int64_t*>(out[k])[i] = word_int(v);
          break;
        case ElementType::float64:
          static_cast<double*>(out[k])[i] = null ? bits_double(0x7FF8000000000000ull) : word_float(v);
          break;
        case ElementType::boolean:
          static_cast<std::uint8_t*>(out[k])[i] = static_cast<std::uint8_t>(v);
          break;
        case ElementType::string:
          static_cast<std::int32_t*>(out[k])[i] = null ? -1 : static_cast<std::int32_t>(v);
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace detail

template <class B>
void KeyKernels<B>::decode(const Exec& exec, std::uint64_t const* const* words, const KeyLayout& layout,
                           const ElementType* types, std::int64_t n, void* const* out, std::uint8_t* const* valid) {
  SLAB_EXPECTS(layout.ncols >= 0 && layout.ncols <= kMaxKeyColumns, InvalidArgument,
               "key kernels: " + std::to_string(layout.ncols) + " key columns (at most " +
                   std::to_string(kMaxKeyColumns) + ")");
  if (n <= 0) return;
  detail::DecodeRow row{};
  for (int w = 0; w < layout.width(); ++w) row.words[w] = words[w];
  row.layout = layout;
  for (int k = 0; k < layout.ncols; ++k) {
    row.types[k] = types[k];
    row.out[k] = out[k];
    row.valid[k] = valid ? valid[k] : nullptr;
  }
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, row);
}

template <class B>
std::int64_t KeyKernels<B>::encode(const Exec& exec, const KeyColumn* keys, const KeyLayout& layout, std::int64_t n,
                                   std::uint64_t* const* words, std::uint8_t* keep) {
  detail::check_key_columns(layout.ncols, "encode_keys");
  if (n <= 0) return 0;
  B b(exec);
  detail::EncodeRow f{};
  for (int k = 0; k < layout.ncols; ++k) f.keys[k] = keys[k];
  f.layout = layout;
  for (int w = 0; w < layout.width(); ++w) f.words[w] = words[w];
  f.keep = keep;
  thrust::counting_iterator<std::int64_t> rows(0);
  thrust::for_each(b.policy(), rows, rows + n, f);
  if (!layout.dropna) return n;
  return static_cast<std::int64_t>(thrust::count(b.policy(), keep, keep + n, std::uint8_t{1}));
}

template <class B>
void KeyKernels<B>::value_word_range(const Exec& exec, const KeyColumn& key, std::int64_t n, std::uint64_t* min,
                                     std::uint64_t* max) {
  *min = ~0ull;
  *max = 0;
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> rows(0);
  const detail::WordRange r = thrust::transform_reduce(b.policy(), rows, rows + n, detail::RowWordRange{key},
                                                       detail::WordRange{~0ull, 0}, detail::MergeWordRange{});
  *min = r.min;
  *max = r.max;
}

template <class B>
void KeyKernels<B>::sort_words(const Exec& exec, const SortColumn* cols, int ncols, bool nulls_first, std::int64_t n,
                               std::uint64_t* const* words) {
  detail::check_key_columns(ncols, "sort_words");
  if (n <= 0) return;
  B b(exec);
  detail::SortWordsRow f{};
  for (int k = 0; k < ncols; ++k) {
    f.cols[k] = cols[k];
    f.words[2 * k] = words[2 * k];
    f.words[2 * k + 1] = words[2 * k + 1];
  }
  f.ncols = ncols;
  f.nulls_first = nulls_first;
  thrust::counting_iterator<std::int64_t> rows(0);
  thrust::for_each(b.policy(), rows, rows + n, f);
}

}  // namespace slab::frame::kernels
