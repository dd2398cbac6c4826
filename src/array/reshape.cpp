// reshape and ravel: the shape arithmetic of NumPy (one -1 inferred), then the flat assembly of assemble.cpp.
#include "slab/array/reshape.hpp"

#include <algorithm>
#include <string>

#include "array/assemble.hpp"
#include "slab/core/error.hpp"

namespace slab {
namespace {

// "(4, -1)" for messages: the shape as the caller wrote it.
std::string written(Shape s) {
  if (s.ndim == 1) return "(" + std::to_string(s.rows) + ",)";
  return "(" + std::to_string(s.rows) + ", " + std::to_string(s.cols) + ")";
}

// `want` with its -1 inferred from `size`, as NumPy infers it.
Shape resolve(Shape from, Shape want) {
  const std::int64_t size = from.size();
  auto fail = [&](const std::string& why) {
    SLAB_FAIL(ShapeError, "reshape: cannot reshape an array of shape " + to_string(from) + " (size " +
                              std::to_string(size) + ") into shape " + written(want) + ": " + why);
  };
  SLAB_EXPECTS(want.ndim == 1 || want.ndim == 2, ShapeError,
               "reshape: shape " + written(want) + " has " + std::to_string(want.ndim) + " dimensions; slab arrays " +
                   "have 1 or 2");
  if (want.ndim == 1) want.cols = 1;
  const bool rows_unknown = want.rows == -1, cols_unknown = want.ndim == 2 && want.cols == -1;
  if (want.rows < -1 || want.cols < -1) fail("negative dimensions are not allowed");
  if (rows_unknown && cols_unknown) fail("only one dimension can be -1");
  if (rows_unknown || cols_unknown) {
    const std::int64_t known = rows_unknown ? want.cols : want.rows;
    if (known == 0 || size % known != 0) fail("the size is not a multiple of the other dimensions");
    (rows_unknown ? want.rows : want.cols) = size / known;
  }
  if (want.size() != size) fail("the sizes differ (" + std::to_string(want.size()) + " elements)");
  return want;
}

}  // namespace

template <class T>
Array<T> reshape(const Array<T>& a, Shape shape) {
  const Layout& l = a.layout();
  const Shape out = resolve(l.shape(), shape);
  // The same extents, only ndim changing: a view with the same blocks and chunks (split by columns, the flat
  // path below splits the result by rows instead, as for every other reshape).
  if (out.rows == l.rows && out.cols == l.cols && (out.ndim == l.ndim || l.split != Split::cols)) {
    if (out.ndim == l.ndim) return a;
    Layout v = l;
    v.ndim = out.ndim;
    if (a.is_expression()) return Array<T>(a.engine(), std::move(v), a.expr());
    return Array<T>(a.engine(), std::move(v), a.local_chunks());
  }
  const Split split = l.split == Split::none ? Split::none : Split::rows;
  const std::int64_t chunk_rows =
      std::max<std::int64_t>(1, detail::chunk_elements(l) / std::max<std::int64_t>(1, out.cols));
  const Layout target = Layout::make(out, split, l.nranks, chunk_rows, sizeof(T));
  return detail::assemble_flat<T>(a.engine(), {{a, 0}}, target, "reshape");
}

template <class T>
Array<T> ravel(const Array<T>& a) {
  return reshape(a, Shape{-1});
}

#define SLAB_INSTANTIATE(T)                          \
  template Array<T> reshape(const Array<T>&, Shape); \
  template Array<T> ravel(const Array<T>&);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab
