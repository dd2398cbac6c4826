#pragma once
/// @file hash_table.hpp
/// @brief Open-addressing maps from group keys to dense group ids, used by groupby and merge.
///
/// Keys are tuples of K 64-bit "key words" (see key_words.hpp: order-preserving encodings of int64,
/// timestamp, bool, float64 and dictionary-ranked strings). Where the key tuple packs into one word (the
/// usual case) GroupMap1 or, for small ranges, DirectMap is used; GroupMapN handles the rest. No
/// std::unordered_map: linear probing over flat arrays, Fibonacci hashing, load factor <= 1/2.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "frame/kernels/key_words_hd.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::detail {

/// Hash used to route a key to a rank / partition: independent of the tables' Fibonacci hash
/// (kernels/key_words_hd.hpp's, which the device shares).
using kernels::route_hash;
/// Hash of a K-word key.
inline std::uint64_t hash_words(const std::uint64_t* w, int k) noexcept {
  std::uint64_t h = kernels::kHashWordsSeed;
  for (int i = 0; i < k; ++i) h = kernels::hash_words_step(h, w[i]);
  return h;
}

inline void check_group_count(std::size_t n) {
  SLAB_EXPECTS(n < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), InvalidArgument,
               "more than 2^31 groups on one rank");
}

/// Single-word keys -> dense ids 0, 1, ... in first-seen order.
class GroupMap1 {
 public:
  explicit GroupMap1(std::size_t expected = 16) { rehash(capacity_for(expected)); }

  /// The id of `key`, inserting it when new.
  std::int32_t find_or_insert(std::uint64_t key) {
    std::size_t i = slot_of(key);
    while (true) {
      const std::int32_t g = gid_[i];
      if (g < 0) break;
      if (key_[i] == key) return g;
      i = (i + 1) & mask_;
    }
    const auto g = static_cast<std::int32_t>(keys_.size());
    key_[i] = key;
    gid_[i] = g;
    keys_.push_back(key);
    if (keys_.size() * 2 > gid_.size()) {
      check_group_count(keys_.size());
      rehash(gid_.size() * 2);
    }
    return g;
  }
  /// The id of `key`, or -1.
  [[nodiscard]] std::int32_t find(std::uint64_t key) const noexcept {
    std::size_t i = slot_of(key);
    while (true) {
      const std::int32_t g = gid_[i];
      if (g < 0 || key_[i] == key) return g;
      i = (i + 1) & mask_;
    }
  }
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }
  /// Keys by id.
  [[nodiscard]] const std::vector<std::uint64_t>& keys() const noexcept { return keys_; }
  void reserve(std::size_t n) {
    if (n * 2 > gid_.size()) rehash(capacity_for(n));
  }

 private:
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < 2 * n + 2) c *= 2;
    return c;
  }
  [[nodiscard]] std::size_t slot_of(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void rehash(std::size_t cap) {
    key_.assign(cap, 0);
    gid_.assign(cap, -1);
    mask_ = cap - 1;
    shift_ = 64;
    for (std::size_t c = cap; c > 1; c >>= 1) --shift_;
    for (std::size_t g = 0; g < keys_.size(); ++g) {
      std::size_t i = slot_of(keys_[g]);
      while (gid_[i] >= 0) i = (i + 1) & mask_;
      key_[i] = keys_[g];
      gid_[i] = static_cast<std::int32_t>(g);
    }
  }

  std::vector<std::uint64_t> key_;
  std::vector<std::int32_t> gid_;
  std::vector<std::uint64_t> keys_;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

/// Single-word keys known to lie in [0, range) with a small range: a plain array lookup.
class DirectMap {
 public:
  explicit DirectMap(std::uint64_t range) : gid_(range, -1) {}
  std::int32_t find_or_insert(std::uint64_t key) {
    std::int32_t& g = gid_[key];
    if (g < 0) {
      g = static_cast<std::int32_t>(keys_.size());
      keys_.push_back(key);
    }
    return g;
  }
  [[nodiscard]] std::int32_t find(std::uint64_t key) const noexcept { return key < gid_.size() ? gid_[key] : -1; }
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }
  [[nodiscard]] const std::vector<std::uint64_t>& keys() const noexcept { return keys_; }

 private:
  std::vector<std::int32_t> gid_;
  std::vector<std::uint64_t> keys_;
};

/// K-word keys -> dense ids in first-seen order.
class GroupMapN {
 public:
  explicit GroupMapN(int k, std::size_t expected = 16) : k_(k) { rehash(capacity_for(expected)); }

  std::int32_t find_or_insert(const std::uint64_t* key) {
    const std::uint64_t h = hash_words(key, k_);
    std::size_t i = h & mask_;
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    while (true) {
      const std::int32_t g = gid_[i];
      if (g < 0) break;
      if (tag_[i] == tag && equal(g, key)) return g;
      i = (i + 1) & mask_;
    }
    const auto g = static_cast<std::int32_t>(hashes_.size());
    gid_[i] = g;
    tag_[i] = tag;
    keys_.insert(keys_.end(), key, key + k_);
    hashes_.push_back(h);
    if (hashes_.size() * 2 > gid_.size()) {
      check_group_count(hashes_.size());
      rehash(gid_.size() * 2);
    }
    return g;
  }
  [[nodiscard]] std::int32_t find(const std::uint64_t* key) const noexcept {
    const std::uint64_t h = hash_words(key, k_);
    std::size_t i = h & mask_;
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    while (true) {
      const std::int32_t g = gid_[i];
      if (g < 0) return -1;
      if (tag_[i] == tag && equal(g, key)) return g;
      i = (i + 1) & mask_;
    }
  }
  [[nodiscard]] std::size_t size() const noexcept { return hashes_.size(); }
  [[nodiscard]] int width() const noexcept { return k_; }
  /// Keys by id, k words each.
  [[nodiscard]] const std::vector<std::uint64_t>& keys() const noexcept { return keys_; }

 private:
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < 2 * n + 2) c *= 2;
    return c;
  }
  [[nodiscard]] bool equal(std::int32_t g, const std::uint64_t* key) const noexcept {
    return std::memcmp(keys_.data() + static_cast<std::size_t>(g) * k_, key, sizeof(std::uint64_t) * k_) == 0;
  }
  void rehash(std::size_t cap) {
    gid_.assign(cap, -1);
    tag_.assign(cap, 0);
    mask_ = cap - 1;
    for (std::size_t g = 0; g < hashes_.size(); ++g) {
      std::size_t i = hashes_[g] & mask_;
      while (gid_[i] >= 0) i = (i + 1) & mask_;
      gid_[i] = static_cast<std::int32_t>(g);
      tag_[i] = static_cast<std::uint32_t>(hashes_[g] >> 32);
    }
  }

  int k_;
  std::vector<std::int32_t> gid_;
  std::vector<std::uint32_t> tag_;
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> hashes_;
  std::size_t mask_ = 0;
};

/// Dense ids for keys of any width: picks DirectMap, GroupMap1 or GroupMapN once, at construction.
class GroupIndex {
 public:
  /// `width` words per key; `direct_range` > 0 (width 1 only) selects the array lookup over [0, range).
  GroupIndex(int width, std::uint64_t direct_range, std::size_t expected)
      : width_(width),
        direct_(direct_range > 0 ? direct_range : 0),
        map1_(width == 1 && !direct_range ? expected : 0),
        mapn_(width > 1 ? width : 1, width > 1 ? expected : 0) {
    SLAB_EXPECTS(width >= 1, InvalidArgument, "a group key needs at least one word");
    mode_ = width > 1 ? 2 : (direct_range > 0 ? 0 : 1);
  }
  /// Assign ids to `n` keys given as `width` word columns (words[c][i]); writes ids to `out`.
  void assign(const std::uint64_t* const* words, std::size_t n, std::int32_t* out) {
    if (mode_ == 0) {
      const std::uint64_t* w = words[0];
      for (std::size_t i = 0; i < n; ++i) out[i] = direct_.find_or_insert(w[i]);
    } else if (mode_ == 1) {
      const std::uint64_t* w = words[0];
      for (std::size_t i = 0; i < n; ++i) out[i] = map1_.find_or_insert(w[i]);
    } else {
      std::vector<std::uint64_t> key(width_);
      for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < width_; ++c) key[c] = words[c][i];
        out[i] = mapn_.find_or_insert(key.data());
      }
    }
  }
  /// Look up (no insert) n keys; -1 where absent.
  void lookup(const std::uint64_t* const* words, std::size_t n, std::int32_t* out) const {
    if (mode_ == 0) {
      for (std::size_t i = 0; i < n; ++i) out[i] = direct_.find(words[0][i]);
    } else if (mode_ == 1) {
      for (std::size_t i = 0; i < n; ++i) out[i] = map1_.find(words[0][i]);
    } else {
      std::vector<std::uint64_t> key(width_);
      for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < width_; ++c) key[c] = words[c][i];
        out[i] = mapn_.find(key.data());
      }
    }
  }
  [[nodiscard]] std::size_t size() const noexcept {
    return mode_ == 0 ? direct_.size() : mode_ == 1 ? map1_.size() : mapn_.size();
  }
  [[nodiscard]] int width() const noexcept { return width_; }
  /// Word c of group g's key.
  [[nodiscard]] std::uint64_t key_word(std::size_t g, int c) const noexcept {
    if (mode_ == 0) return direct_.keys()[g];
    if (mode_ == 1) return map1_.keys()[g];
    return mapn_.keys()[g * width_ + c];
  }

 private:
  int width_;
  int mode_ = 1;
  DirectMap direct_;
  GroupMap1 map1_;
  GroupMapN mapn_;
};

}  // namespace slab::frame::detail
