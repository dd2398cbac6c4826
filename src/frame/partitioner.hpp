#pragma once
/// @file partitioner.hpp
/// @brief The one partitioner of the frame layer: where a row (or a partial record) goes, by the hash of its key
/// or by the range its key falls in. shuffle, groupby, merge and sort_values route through it, and shuffle_routed
/// is their one row exchange. Buckets are numbered rank-major: bucket b is output partition b % parts of rank
/// b / parts, so range buckets in order are the global row order (rank order, then partition order).
///
/// Keys are records of `words` 64-bit order-preserving words (key_words.hpp, sort's encoder); key_less is their
/// one comparison. Hashes map to buckets by their high bits (Lemire's multiply-shift), which leaves the low bits,
/// which slab's open-addressing tables index by, independent of the bucket a key lands in. Nothing here is
/// collective except sampled().

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "frame/kernels/key_words_hd.hpp"

namespace slab {
class Comm;
}

namespace slab::frame::detail {

/// The one key comparison: records of `words` words, lexicographic, word by word unsigned.
[[nodiscard]] inline bool key_less(const std::uint64_t* a, const std::uint64_t* b, std::size_t words) noexcept {
  for (std::size_t i = 0; i < words; ++i)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}

class Partitioner {
 public:
  /// Hash partitioning into nranks * parts buckets.
  [[nodiscard]] static Partitioner hash(int nranks, int parts);
  /// Range partitioning by nranks * parts - 1 sorted splitter records (fewer when there were fewer samples: the
  /// last buckets then stay empty): a key's bucket is the number of splitters <= it.
  [[nodiscard]] static Partitioner range(int nranks, int parts, std::vector<std::uint64_t> splitters,
                                         std::size_t words);
  /**
   * @brief Range partitioning with splitters at even quantiles of every rank's samples (`samples`: this rank's
   * records of `words` words, any order). Collective (one allgatherv): every rank gets the same splitters.
   */
  [[nodiscard]] static Partitioner sampled(const Comm& comm, int parts, std::span<const std::uint64_t> samples,
                                           std::size_t words);

  [[nodiscard]] bool is_range() const noexcept { return range_; }
  [[nodiscard]] int nranks() const noexcept { return nranks_; }
  [[nodiscard]] int parts() const noexcept { return parts_; }
  [[nodiscard]] std::uint32_t buckets() const noexcept { return static_cast<std::uint32_t>(nranks_) * parts_; }
  [[nodiscard]] const std::vector<std::uint64_t>& splitters() const noexcept { return splitters_; }

  /// The bucket of a key hash (hash partitioning): the hash scaled to [0, buckets()) by its high bits
  /// (kernels/key_words_hd.hpp's shuffle_bucket, which the device shares).
  [[nodiscard]] std::uint32_t bucket_of_hash(std::uint64_t hash) const noexcept {
    return kernels::shuffle_bucket(hash, nranks_, parts_);
  }
  /// The bucket of a key record (range partitioning): the number of splitters <= key.
  [[nodiscard]] std::uint32_t bucket_of_key(const std::uint64_t* key) const noexcept;
  [[nodiscard]] int rank_of(std::uint32_t bucket) const noexcept { return static_cast<int>(bucket) / parts_; }
  [[nodiscard]] int part_of(std::uint32_t bucket) const noexcept { return static_cast<int>(bucket) % parts_; }

 private:
  int nranks_ = 1;
  int parts_ = 1;
  bool range_ = false;
  std::size_t words_ = 0;
  std::vector<std::uint64_t> splitters_;
};

/**
 * @brief nbuckets - 1 records at even quantiles of `samples` (records of `words` words; sorted here), or none when
 * there are no samples. Not collective.
 */
[[nodiscard]] std::vector<std::uint64_t> choose_splitters(std::vector<std::uint64_t> samples, std::size_t words,
                                                          std::size_t nbuckets);

}  // namespace slab::frame::detail
