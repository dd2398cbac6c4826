// np.sort and np.unique for 1-D Arrays, through a one-column frame: the sample sort and the shuffle already move
// rows between ranks out of core.
#include "slab/frame/array_ops.hpp"

#include <string>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/engine.hpp"
#include "slab/frame/from_arrays.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/sort.hpp"

namespace slab {
namespace {

constexpr const char* value_column = "value";

template <class T>
void expect_1d(const Array<T>& a, const char* op, const char* name) {
  a.engine().comm().run_collectively([&] {
    SLAB_EXPECTS(a.ndim() == 1, ShapeError,
                 std::string(op) + ": " + name + " " + a.layout().to_string() + " is 2-D; " + op + " takes 1-D");
  });
}

template <class T>
frame::Frame as_frame(const Array<T>& a) {
  return frame::from_arrays({{value_column, a}});
}

}  // namespace

template <class T>
Array<T> sort(const Array<T>& a) {
  expect_1d(a, "sort", "a");
  return frame::to_array<T>(frame::sort_values(as_frame(a), std::vector<std::string>{value_column}), value_column);
}

template <class T>
Array<T> unique(const Array<T>& a) {
  expect_1d(a, "unique", "a");
  const frame::Frame distinct = frame::drop_duplicates(as_frame(a), {value_column});
  return frame::to_array<T>(frame::sort_values(distinct, std::vector<std::string>{value_column}), value_column);
}

template Array<double> sort(const Array<double>&);
template Array<std::int64_t> sort(const Array<std::int64_t>&);
template Array<double> unique(const Array<double>&);
template Array<std::int64_t> unique(const Array<std::int64_t>&);

}  // namespace slab
