#pragma once
// Row-by-row comparison of two batches: same columns, and per row the same validity and (where valid) the
// same value bytes. A batch without a mask on a column counts as all valid there.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "slab/frame/batch.hpp"

namespace kernel_test {

inline bool row_valid(const slab::frame::BatchView& b, std::size_t c, std::int64_t r) {
  const std::uint8_t* v = b.valid(c);
  return !v || v[r];
}

/// Whether a and b hold the same rows (`what` names the case in failures; at most 5 rows reported).
inline void expect_same_rows(const slab::frame::BatchView& a, const slab::frame::BatchView& b,
                             const std::string& what) {
  ASSERT_EQ(a.nrows(), b.nrows()) << what;
  if (a.nrows() == 0) return;
  ASSERT_EQ(a.ncols(), b.ncols()) << what;
  int bad = 0;
  for (std::size_t c = 0; c < a.ncols(); ++c) {
    const std::size_t es = slab::element_size(a.type(c));
    for (std::int64_t r = 0; r < a.nrows() && bad < 5; ++r) {
      const bool va = row_valid(a, c, r), vb = row_valid(b, c, r);
      if (va != vb || (va && std::memcmp(a.data(c) + r * es, b.data(c) + r * es, es) != 0)) {
        ADD_FAILURE() << what << ": column " << c << " row " << r << " differs (valid " << va << "/" << vb << ")";
        ++bad;
      }
    }
  }
}

}  // namespace kernel_test
