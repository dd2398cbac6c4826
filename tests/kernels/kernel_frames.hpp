#pragma once
// The host side of the frame kernel tests: a 1-rank frame made from a test batch, and the batch the host's
// operations actually see (from_local_table recodes strings into the dictionary of the strings present), which
// the kernels then get too.
#include <vector>

#include "kernel_batches.hpp"
#include "slab/frame/frame.hpp"
#include "test_engine.hpp"

namespace kernel_test {

struct HostFrame {
  slab::frame::Frame frame;
  std::vector<std::byte> storage;
  slab::frame::BatchView view;
  [[nodiscard]] const slab::frame::Schema& schema() const { return frame.schema(); }
  [[nodiscard]] slab::frame::kernels::ColumnView column(std::size_t c) const {
    return {view.type(c), view.data(c), view.valid(c)};
  }
};

/// The rows of t as a frame of this rank (partitions of rows_per_partition rows; <= 0: one), persisted, and
/// their concatenation as one batch.
inline HostFrame host_frame(slab::Engine& engine, const TestBatch& t, std::int64_t rows_per_partition = 0) {
  HostFrame h;
  h.frame =
      slab::frame::Frame::from_local_table(engine, slab::frame::to_local_table(t.view, t.schema), rows_per_partition);
  h.frame.persist();
  h.view = slab::frame::concat_local_partitions(h.frame, h.storage);
  return h;
}

/// Column c of a host table as batch bytes of the table's schema (strings as codes of `dict`).
inline std::vector<std::byte> table_batch(const slab::frame::LocalTable& table, const slab::frame::Schema& schema) {
  std::vector<std::byte> storage;
  slab::frame::write_batch(table, schema, 0, table.nrows(), storage);
  return storage;
}

}  // namespace kernel_test
