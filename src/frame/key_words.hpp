#pragma once
/// @file key_words.hpp
/// @brief Group/join keys as tuples of order-preserving 64-bit words, packed into one word when the
/// (global) value ranges allow. Word order == pandas' sort order (strings by dictionary rank, nulls last).
///
/// Per key column: [null flag word (0 valid, 1 null), only when nulls are kept] then a value word:
///   int64/timestamp: bits ^ 2^63; float64: the IEEE total-order flip with -0.0 -> 0.0; bool: 0/1;
///   string: the code (dictionaries are sorted), optionally remapped into a shared dictionary.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "slab/frame/batch.hpp"

namespace slab::frame::detail {

constexpr std::uint64_t kSign = 0x8000000000000000ull;

inline std::uint64_t float_word(double v) noexcept {
  if (v == 0) v = 0.0;
  const auto b = std::bit_cast<std::uint64_t>(v);
  return (b & kSign) ? ~b : (b | kSign);
}
inline double word_float(std::uint64_t w) noexcept { return std::bit_cast<double>((w & kSign) ? (w & ~kSign) : ~w); }

struct KeyEncoder {
  std::vector<std::size_t> cols;    ///< batch column of each key
  std::vector<DType> types;         ///< type of each key
  std::vector<std::uint64_t> card;  ///< value-word cardinality when static (bool, string), else 0
  /// string keys: code -> code in the shared dictionary (empty = identity); -1 -> no match (merge only)
  std::vector<std::vector<std::int64_t>> remap;
  bool dropna = true;

  int nwords = 0;
  bool packed = false;
  std::vector<std::uint64_t> lo, span;  ///< per word (packing)
  std::uint64_t range = 0;              ///< product of spans when packed

  [[nodiscard]] int width() const noexcept { return packed ? 1 : nwords; }
  [[nodiscard]] bool has_flags() const noexcept { return !dropna; }
  /// Word index of key column k's value word.
  [[nodiscard]] int value_word(std::size_t k) const noexcept {
    return static_cast<int>(k) * (dropna ? 1 : 2) + (dropna ? 0 : 1);
  }

  /// Whether every word's range is known without a data pass.
  [[nodiscard]] bool static_ranges() const {
    for (auto c : card)
      if (c == 0) return false;
    return true;
  }

  /// Set words and default (unpacked) layout; call after cols/types/card/dropna.
  void init() {
    nwords = static_cast<int>(cols.size()) * (dropna ? 1 : 2);
    lo.assign(nwords, 0);
    span.assign(nwords, 0);
    remap.resize(cols.size());
    packed = false;
  }

  /// Raw value word of (key k, row) and whether it is null.
  [[nodiscard]] bool value_of(const BatchView& b, std::size_t k, std::int64_t row, std::uint64_t& w) const {
    const std::size_t c = cols[k];
    const std::uint8_t* valid = b.valid(c);
    if (valid && !valid[row]) return false;
    switch (types[k]) {
      case DType::int64:
      case DType::timestamp:
        w = static_cast<std::uint64_t>(b.column<std::int64_t>(c)[row]) ^ kSign;
        return true;
      case DType::float64: {
        const double v = b.column<double>(c)[row];
        if (std::isnan(v)) return false;
        w = float_word(v);
        return true;
      }
      case DType::boolean:
        w = b.column<std::uint8_t>(c)[row] ? 1 : 0;
        return true;
      case DType::string: {
        std::int64_t code = b.column<std::int32_t>(c)[row];
        if (code < 0) return false;
        if (!remap[k].empty()) code = remap[k][code];
        if (code < 0) return false;
        w = static_cast<std::uint64_t>(code);
        return true;
      }
    }
    return false;
  }

  /// Fold this batch's value words into per-word [min, max] (mins/maxs of size nwords).
  void update_ranges(const BatchView& b, std::vector<std::uint64_t>& mins, std::vector<std::uint64_t>& maxs) const {
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const int vw = value_word(k);
      if (card[k]) {
        mins[vw] = 0;
        maxs[vw] = std::max<std::uint64_t>(maxs[vw], card[k] - 1);
      } else {
        std::uint64_t mn = mins[vw], mx = maxs[vw], w = 0;
        for (std::int64_t r = 0; r < b.nrows(); ++r)
          if (value_of(b, k, r, w)) {
            mn = std::min(mn, w);
            mx = std::max(mx, w);
          }
        mins[vw] = mn;
        maxs[vw] = mx;
      }
      if (!dropna) {
        mins[vw - 1] = 0;
        maxs[vw - 1] = 1;
      }
    }
  }

  /// Decide packing from global per-word [min, max] (min > max: no values at all).
  void set_ranges(const std::vector<std::uint64_t>& mins, const std::vector<std::uint64_t>& maxs) {
    packed = true;
    unsigned __int128 prod = 1;
    for (int w = 0; w < nwords; ++w) {
      lo[w] = mins[w] <= maxs[w] ? mins[w] : 0;
      span[w] = mins[w] <= maxs[w] ? maxs[w] - mins[w] + 1 : 1;
      if (span[w] == 0) packed = false;  // full 2^64 range
      prod *= span[w];
      if (prod > (static_cast<unsigned __int128>(1) << 63)) packed = false;
    }
    range = packed ? static_cast<std::uint64_t>(prod) : 0;
    if (!packed) std::fill(lo.begin(), lo.end(), 0);
  }
  /// Single word keys need no packing; ranges only help the direct map.
  void set_unpacked() {
    packed = false;
    std::fill(lo.begin(), lo.end(), 0);
  }

  /// Encode every row: out[w][row] for w < width(); keep[row] = 0 where the key is dropped (null, or a
  /// string with no match in the shared dictionary). Returns the number of kept rows.
  std::int64_t encode(const BatchView& b, std::vector<std::vector<std::uint64_t>>& out,
                      std::vector<std::uint8_t>& keep) const {
    const auto n = static_cast<std::size_t>(b.nrows());
    out.resize(width());
    for (auto& o : out) o.assign(n, 0);
    keep.assign(n, 1);
    std::int64_t kept = static_cast<std::int64_t>(n);
    // Fast path: one int64 key without mask, unpacked.
    if (!packed && cols.size() == 1 && dropna && (types[0] == DType::int64 || types[0] == DType::timestamp) &&
        !b.valid(cols[0])) {
      const std::int64_t* v = b.column<std::int64_t>(cols[0]).data();
      std::uint64_t* o = out[0].data();
      for (std::size_t r = 0; r < n; ++r) o[r] = static_cast<std::uint64_t>(v[r]) ^ kSign;
      return kept;
    }
    std::vector<std::uint64_t> col(n);
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const int vw = value_word(k);
      // value words (null -> flagged)
      std::vector<std::uint8_t> isnull(dropna ? 0 : n, 0);
      for (std::size_t r = 0; r < n; ++r) {
        std::uint64_t w = 0;
        if (value_of(b, k, static_cast<std::int64_t>(r), w)) {
          col[r] = w;
        } else if (dropna) {
          if (keep[r]) --kept;
          keep[r] = 0;
          col[r] = lo[vw];
        } else {
          isnull[r] = 1;
          col[r] = lo[vw];
        }
      }
      if (packed) {
        std::uint64_t* o = out[0].data();
        if (!dropna) {
          const std::uint64_t s = span[vw - 1];
          for (std::size_t r = 0; r < n; ++r) o[r] = o[r] * s + isnull[r];
        }
        const std::uint64_t s = span[vw], l = lo[vw];
        for (std::size_t r = 0; r < n; ++r) o[r] = o[r] * s + (col[r] - l);
      } else {
        if (!dropna)
          for (std::size_t r = 0; r < n; ++r) out[vw - 1][r] = isnull[r];
        out[vw].swap(col);
        col.assign(n, 0);
      }
    }
    return kept;
  }

  /// The nwords words of a width()-word key.
  void unpack(const std::uint64_t* key, std::uint64_t* words) const {
    if (!packed) {
      for (int w = 0; w < nwords; ++w) words[w] = key[w];
      return;
    }
    std::uint64_t p = key[0];
    for (int w = nwords - 1; w >= 0; --w) {
      words[w] = p % span[w] + lo[w];
      p /= span[w];
    }
  }
};

}  // namespace slab::frame::detail
