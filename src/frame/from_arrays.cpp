// Frames from Arrays and back. See slab/frame/from_arrays.hpp.
#include "slab/frame/from_arrays.hpp"

#include "slab/array/creation.hpp"
#include "slab/array/slicing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "array/kernels/layout.hpp"
#include "frame/device_paths.hpp"
#include "frame/kernels/ops.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {

// One array feeding `width` consecutive frame columns (a 1-D array: one; a 2-D array: one per column). Its
// elements are 8-byte words (int64 or double), so a partition copies words without looking at their type.
struct Source {
  std::vector<Chunk> chunks;
  std::vector<ChunkExtent> extents;  // global rows of each local chunk (all columns)
  std::int64_t width = 1;
};

template <class T>
Source source_of(const Array<T>& a) {
  static_assert(sizeof(T) == 8);
  Source s;
  s.width = a.cols();
  s.chunks = a.local_chunks();
  for (std::size_t i = 0; i < s.chunks.size(); ++i) s.extents.push_back(a.local_extent(i));
  return s;
}

// The slices of `s`'s chunks overlapping global rows [begin, end): (chunk index, first row, rows).
struct Piece {
  std::size_t input;
  std::int64_t chunk_row0;
  std::int64_t row0;
  std::int64_t rows;
};

// One task per partition (the row ranges in `parts`); column c of the output is column (c - first column of its
// source) of that source's overlapping chunks.
Frame assemble(Engine& engine, Schema schema, const std::vector<ChunkExtent>& parts,
               const std::vector<Source>& sources) {
  // On a device context each column is one strided copy per source chunk (LayoutKernels::copy_2d), in device
  // memory; elsewhere a host loop, recorded as a fallback where device paths are taken.
  const bool device = slab::detail::has_device_backend(engine.tasks().memory().execution());
  if (!device) note_host_fallback(engine, "from_arrays");
  const std::vector<ElementType> types = types_of(schema);
  std::vector<Chunk> out;
  std::vector<std::optional<std::int64_t>> rows;
  for (const ChunkExtent& part : parts) {
    const std::int64_t begin = part.row0, end = part.row0 + part.rows;
    std::vector<Chunk> inputs;
    std::vector<std::vector<Piece>> pieces(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s)
      for (std::size_t i = 0; i < sources[s].chunks.size(); ++i) {
        const ChunkExtent& e = sources[s].extents[i];
        const std::int64_t lo = std::max(begin, e.row0), hi = std::min(end, e.row0 + e.rows);
        if (lo >= hi) continue;
        pieces[s].push_back({inputs.size(), e.row0, lo, hi - lo});
        inputs.push_back(sources[s].chunks[i]);
      }
    std::vector<std::int64_t> widths;
    for (const Source& s : sources) widths.push_back(s.width);
    out.push_back(engine.tasks().submit(
        "from_arrays", std::move(inputs),
        [types, begin, n = part.rows, pieces, widths, device](TaskContext& ctx) {
          BatchBuilder b(ctx, n, types, {});
          if (device) {
            detail::on_device_backend(ctx, [&](const slab::kernels::Exec& exec, auto tag) {
              using Copy = slab::kernels::LayoutKernels<typename decltype(tag)::type, std::int64_t>;
              std::size_t col = 0;
              for (std::size_t s = 0; s < pieces.size(); ++s)
                for (std::int64_t j = 0; j < widths[s]; ++j, ++col)
                  for (const Piece& p : pieces[s])  // rows of column j of the chunk (row stride w) into place
                    Copy::copy_2d(
                        exec, ctx.input_as<std::int64_t>(p.input).data() + (p.row0 - p.chunk_row0) * widths[s] + j,
                        widths[s], p.rows, 1, reinterpret_cast<std::int64_t*>(b.data(col)) + (p.row0 - begin), 1);
            });
            ctx.execution().synchronize();
            return;
          }
          std::size_t col = 0;
          for (std::size_t s = 0; s < pieces.size(); ++s) {
            const std::int64_t w = widths[s];
            for (std::int64_t j = 0; j < w; ++j, ++col) {
              auto dst = b.column<std::uint64_t>(col);
              for (const Piece& p : pieces[s]) {
                const auto src = ctx.input_as<std::uint64_t>(p.input);
                const std::int64_t skip = p.row0 - p.chunk_row0;
                for (std::int64_t r = 0; r < p.rows; ++r)
                  dst[static_cast<std::size_t>(p.row0 - begin + r)] = src[static_cast<std::size_t>((skip + r) * w + j)];
              }
            }
          }
        },
        device ? device_task() : TaskOptions{}));
    rows.emplace_back(part.rows);
  }
  return Frame(engine, std::move(schema), std::move(out), std::move(rows));
}

template <class T>
Array<T> rows_split(const Array<T>& a) {
  return a.split() == Split::rows ? a : resplit(a, Split::rows);
}

}  // namespace

Frame from_arrays(const std::vector<ArrayColumn>& columns) {
  SLAB_EXPECTS(!columns.empty(), InvalidArgument, "from_arrays: no columns");
  // Every column as an 8-byte array split by rows (float widened lazily).
  using Wide = std::variant<Array<std::int64_t>, Array<double>>;
  std::vector<Wide> arrays;
  std::vector<Field> fields;
  for (const ArrayColumn& c : columns) {
    std::visit(
        [&](const auto& a) {
          using T = typename std::decay_t<decltype(a)>::value_type;
          SLAB_EXPECTS(a.valid(), InvalidArgument, "from_arrays: column '" + c.name + "' is an empty Array handle");
          SLAB_EXPECTS(a.ndim() == 1, ShapeError,
                       "from_arrays: column '" + c.name + "' is " + a.layout().to_string() + "; give 1-D arrays");
          if constexpr (std::is_same_v<T, float>)
            arrays.emplace_back(rows_split(a.template astype<double>()));
          else
            arrays.emplace_back(rows_split(a));
          fields.push_back({c.name, std::is_same_v<T, std::int64_t> ? ElementType::int64 : ElementType::float64});
        },
        c.values);
  }
  Schema schema(std::move(fields));  // throws on duplicate names
  const Layout target = std::visit([](const auto& a) { return a.layout(); }, arrays.front());
  std::vector<Source> sources;
  for (std::size_t k = 0; k < arrays.size(); ++k)
    std::visit(
        [&](const auto& a) {
          SLAB_EXPECTS(a.rows() == target.rows, ShapeError,
                       "from_arrays: column '" + columns[k].name + "' has " + std::to_string(a.rows()) +
                           " rows, column '" + columns[0].name + "' " + std::to_string(target.rows));
          using T = typename std::decay_t<decltype(a)>::value_type;
          if (a.layout().same_blocks(target)) {
            sources.push_back(source_of(a));
          } else {
            Layout l = target;  // the first column's blocks and chunks, for this column's values
            sources.push_back(source_of(redistribute<T>(a, l)));
          }
        },
        arrays[k]);
  return assemble(std::visit([](const auto& a) -> Engine& { return a.engine(); }, arrays.front()), std::move(schema),
                  sources.front().extents, sources);
}

Frame from_array(const Array<double>& matrix, const std::vector<std::string>& names) {
  SLAB_EXPECTS(matrix.valid(), InvalidArgument, "from_array: empty Array handle");
  SLAB_EXPECTS(matrix.ndim() == 2, ShapeError,
               "from_array: " + matrix.layout().to_string() + " is 1-D; use from_arrays for 1-D columns");
  SLAB_EXPECTS(
      static_cast<std::int64_t>(names.size()) == matrix.cols(), ShapeError,
      "from_array: " + std::to_string(names.size()) + " names for " + std::to_string(matrix.cols()) + " columns");
  std::vector<Field> fields;
  for (const auto& n : names) fields.push_back({n, ElementType::float64});
  Schema schema(std::move(fields));
  const Source s = source_of(rows_split(matrix));
  return assemble(matrix.engine(), std::move(schema), s.extents, {s});
}

template <class T>
Array<T> to_array(const Frame& frame, const std::string& name, std::int64_t chunk) {
  const Schema& schema = frame.schema();
  const std::size_t col = schema.index_of(name);
  const ElementType type = schema.type(col);
  SLAB_EXPECTS(type != ElementType::string, TypeError, "to_array: column '" + name + "' is a string column");
  constexpr bool to_double = std::is_same_v<T, double>;
  SLAB_EXPECTS(to_double || type != ElementType::float64, TypeError,
               "to_array: column '" + name + "' is float64; read it as double");
  Engine& engine = frame.engine();
  // On a device context one cast per piece (OpsKernels::column_values) into the chunk in device memory; elsewhere
  // the host loop.
  const bool device = detail::takes_device_paths(frame);
  const Comm& comm = engine.comm();
  const std::vector<std::int64_t> part_rows = frame.local_partition_rows();
  std::int64_t local = 0, largest = 1;
  for (std::int64_t r : part_rows) local += r, largest = std::max(largest, r);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::int64_t>(&local, 1), std::span<std::int64_t>(counts));
  if (chunk <= 0) chunk = comm.allreduce(largest, ReduceOp::max);

  Layout layout = Layout::make(Shape{0}, Split::rows, comm.size(), chunk);
  layout.bounds.assign(1, 0);
  for (std::int64_t c : counts) layout.bounds.push_back(layout.bounds.back() + c);
  layout.rows = layout.bounds.back();
  // Keep the balanced form where the frame happens to be balanced (so it combines with other arrays).
  if (Layout balanced = Layout::make(Shape{layout.rows}, Split::rows, comm.size(), chunk); balanced.same_blocks(layout))
    layout = balanced;

  const int rank = comm.rank();
  std::vector<std::int64_t> starts{layout.block_begin(rank)};  // global first row of each local partition
  for (std::int64_t r : part_rows) starts.push_back(starts.back() + r);
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < layout.num_chunks(rank); ++i) {
    const ChunkExtent e = layout.chunk_extent(rank, i);
    std::vector<Chunk> inputs;
    std::vector<Piece> pieces;
    for (std::size_t k = 0; k < part_rows.size(); ++k) {
      const std::int64_t lo = std::max(e.row0, starts[k]), hi = std::min(e.row0 + e.rows, starts[k + 1]);
      if (lo >= hi) continue;
      pieces.push_back({inputs.size(), starts[k], lo, hi - lo});
      inputs.push_back(frame.partitions()[k]);
    }
    chunks.push_back(engine.tasks().submit(
        "to_array", std::move(inputs),
        [e, pieces, col, type, name, device](TaskContext& ctx) {
          auto out = ctx.output_as<T>(static_cast<std::size_t>(e.rows));
          auto null_at = [&](std::int64_t row) {
            SLAB_FAIL(TypeError, "to_array: column '" + name + "' has a null at row " + std::to_string(row) +
                                     "; read it as double (NaN) or fill the nulls first");
          };
          if (device) {
            detail::on_device_backend(ctx, [&](const slab::kernels::Exec& exec, auto tag) {
              using Ops = kernels::OpsKernels<typename decltype(tag)::type>;
              for (const Piece& p : pieces) {
                const BatchView b = input_batch(ctx, p.input);
                const std::int64_t skip = p.row0 - p.chunk_row0;
                kernels::ColumnView c = detail::column_view(b, col);
                c.data = b.data(col) + skip * static_cast<std::int64_t>(element_size(type));
                if (c.valid) c.valid += skip;
                const std::int64_t first_null =
                    Ops::column_values(exec, c, p.rows, to_double, out.data() + (p.row0 - e.row0));
                if (first_null >= 0) null_at(p.row0 + first_null);
              }
            });
            ctx.execution().synchronize();
            return;
          }
          for (const Piece& p : pieces) {
            const BatchView b = input_batch(ctx, p.input);
            const std::uint8_t* valid = b.valid(col);
            T* dst = out.data() + (p.row0 - e.row0);
            const std::int64_t skip = p.row0 - p.chunk_row0;
            for (std::int64_t r = 0; r < p.rows; ++r) {
              const std::int64_t row = skip + r;
              if (valid && !valid[row]) {
                if constexpr (std::is_same_v<T, double>) {
                  dst[r] = std::numeric_limits<double>::quiet_NaN();
                  continue;
                } else {
                  null_at(p.row0 + r);
                }
              }
              switch (type) {
                case ElementType::float64:
                  dst[r] = static_cast<T>(b.column<double>(col)[static_cast<std::size_t>(row)]);
                  break;
                case ElementType::boolean:
                  dst[r] = static_cast<T>(b.column<std::uint8_t>(col)[static_cast<std::size_t>(row)]);
                  break;
                default:  // int64, timestamp
                  dst[r] = static_cast<T>(b.column<std::int64_t>(col)[static_cast<std::size_t>(row)]);
              }
            }
          }
        },
        device ? device_task() : TaskOptions{}));
  }
  return Array<T>(engine, std::move(layout), std::move(chunks));
}

template Array<std::int64_t> to_array<std::int64_t>(const Frame&, const std::string&, std::int64_t);
template Array<double> to_array<double>(const Frame&, const std::string&, std::int64_t);

}  // namespace slab::frame
