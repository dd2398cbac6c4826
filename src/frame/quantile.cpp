// Exact quantiles by a distributed sort. See slab/frame/quantile.hpp.
#include "slab/frame/quantile.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "frame/device_paths.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/sort.hpp"

namespace slab::frame {

namespace {
// NumPy's _lerp (numpy/lib/_function_base_impl.py), so results match it bit for bit: from b's side for t >= 0.5.
double lerp(double a, double b, double t) {
  const double d = b - a;
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}
}  // namespace

std::vector<double> quantile(const Frame& frame, const std::string& column, const std::vector<double>& qs) {
  // select, dropna and sort_values take their device paths where the frame does; the order statistics are then
  // read with the memory-kind-aware copy, so quantile itself runs no host loop over rows.
  if (!detail::takes_device_paths(frame)) note_host_fallback(frame.engine(), "quantile");
  const Schema& schema = frame.schema();
  const std::size_t c = schema.index_of(column);
  const ElementType type = schema.type(c);
  SLAB_EXPECTS(type == ElementType::int64 || type == ElementType::float64 || type == ElementType::boolean, TypeError,
               "quantile: column '" + column + "' is " + to_string(type) + "; expected int64, float64 or boolean");
  for (double q : qs)
    SLAB_EXPECTS(q >= 0 && q <= 1, InvalidArgument, "quantile: q = " + std::to_string(q) + " is outside [0, 1]");
  Frame sorted = sort_values(dropna(select(frame, {column})), std::vector<std::string>{column});
  sorted.persist();
  const Comm& comm = frame.engine().comm();
  const std::int64_t first = sorted.global_offset();
  const std::int64_t n = sorted.len();
  std::vector<double> out(qs.size(), std::numeric_limits<double>::quiet_NaN());
  if (n == 0) return out;
  // The order statistics each q needs (lo, hi); the rank holding one adds it, every other rank adds 0.
  std::vector<std::int64_t> want(2 * qs.size());
  for (std::size_t k = 0; k < qs.size(); ++k) {
    const double pos = qs[k] * static_cast<double>(n - 1);
    want[2 * k] = static_cast<std::int64_t>(std::floor(pos));
    want[2 * k + 1] = std::min<std::int64_t>(want[2 * k] + 1, n - 1);
  }
  std::vector<double> vals(want.size(), 0.0);
  std::int64_t row = first;
  const std::vector<std::int64_t> rows = sorted.local_partition_rows();
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allreduce
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const std::int64_t m = rows[k];
      bool holds = false;  // only the partitions holding an order statistic are read (out of core: unspilled)
      for (std::int64_t w : want) holds |= w >= row && w < row + m;
      if (!holds) {
        row += m;
        continue;
      }
      // Where the partition lies: one value's bytes are copied (on a GPU, out of device memory).
      auto [pin, b] = detail::view_chunk_in_place(sorted.partitions()[k]);
      for (std::size_t j = 0; j < want.size(); ++j) {
        if (want[j] < row || want[j] >= row + m) continue;
        const auto i = static_cast<std::size_t>(want[j] - row);
        const std::size_t es = element_size(type);
        std::uint64_t bits = 0;  // the value's bytes (little-endian, so a byte lands in the low bits)
        slab::copy(&bits, b.data(0) + i * es, es, frame.engine().execution());
        vals[j] = type == ElementType::float64   ? std::bit_cast<double>(bits)
                  : type == ElementType::boolean ? static_cast<double>(bits & 0xff)
                                                 : static_cast<double>(static_cast<std::int64_t>(bits));
      }
      row += m;
    }
  });
  comm.allreduce(std::span<double>(vals), ReduceOp::sum);
  for (std::size_t k = 0; k < qs.size(); ++k) {
    const double pos = qs[k] * static_cast<double>(n - 1);
    out[k] = lerp(vals[2 * k], vals[2 * k + 1], pos - std::floor(pos));
  }
  return out;
}

double quantile(const Frame& frame, const std::string& column, double q) {
  return quantile(frame, column, std::vector<double>{q})[0];
}

double median(const Frame& frame, const std::string& column) { return quantile(frame, column, 0.5); }

}  // namespace slab::frame
