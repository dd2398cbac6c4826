#include "frame/partitioner.hpp"

#include <algorithm>
#include <numeric>

#include "slab/comm/comm.hpp"

namespace slab::frame::detail {

Partitioner Partitioner::hash(int nranks, int parts) {
  Partitioner p;
  p.nranks_ = std::max(nranks, 1);
  p.parts_ = std::max(parts, 1);
  return p;
}

Partitioner Partitioner::range(int nranks, int parts, std::vector<std::uint64_t> splitters, std::size_t words) {
  Partitioner p = hash(nranks, parts);
  p.range_ = true;
  p.words_ = words;
  p.splitters_ = std::move(splitters);
  return p;
}

Partitioner Partitioner::sampled(const Comm& comm, int parts, std::span<const std::uint64_t> samples,
                                 std::size_t words) {
  std::vector<std::uint64_t> all;
  comm.allgatherv(samples, all);
  const auto nbuckets = static_cast<std::size_t>(comm.size()) * static_cast<std::size_t>(std::max(parts, 1));
  return range(comm.size(), parts, choose_splitters(std::move(all), words, nbuckets), words);
}

std::uint32_t Partitioner::bucket_of_key(const std::uint64_t* key) const noexcept {
  std::size_t lo = 0, hi = words_ ? splitters_.size() / words_ : 0;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (key_less(key, &splitters_[mid * words_], words_))
      hi = mid;
    else
      lo = mid + 1;
  }
  return static_cast<std::uint32_t>(lo);
}

std::vector<std::uint64_t> choose_splitters(std::vector<std::uint64_t> samples, std::size_t words,
                                            std::size_t nbuckets) {
  const std::size_t n = words ? samples.size() / words : 0;
  std::vector<std::uint64_t> out;
  if (n == 0) return out;  // no rows anywhere: everything (nothing) goes to bucket 0
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return key_less(&samples[a * words], &samples[b * words], words); });
  for (std::size_t k = 1; k < nbuckets; ++k) {
    const std::size_t at = std::min(n - 1, n * k / nbuckets);
    out.insert(out.end(), samples.begin() + static_cast<std::ptrdiff_t>(idx[at] * words),
               samples.begin() + static_cast<std::ptrdiff_t>((idx[at] + 1) * words));
  }
  return out;
}

}  // namespace slab::frame::detail
