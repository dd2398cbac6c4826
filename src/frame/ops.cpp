#include "slab/frame/ops.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include "array/kernels/cast_hd.hpp"
#include "frame/device_paths.hpp"
#include "frame/expr_program.hpp"
#include "frame/kernels/expr.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/ops.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/map_partitions.hpp"
#include "frame/moments.hpp"
#include "memory/kernel_scratch.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/quantile.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {

// Write an evaluated column into column c of b.
void write_eval(const EvalColumn& e, BatchBuilder& b, std::size_t c) {
  std::size_t n = static_cast<std::size_t>(b.nrows());
  switch (e.type) {
    case ElementType::int64:
    case ElementType::timestamp:
      std::copy_n(e.ints.begin(), n, b.column<std::int64_t>(c).begin());
      break;
    case ElementType::float64:
      std::copy_n(e.floats.begin(), n, b.column<double>(c).begin());
      break;
    case ElementType::boolean:
      std::copy_n(e.bools.begin(), n, b.column<std::uint8_t>(c).begin());
      break;
    case ElementType::string:
      std::copy_n(e.codes.begin(), n, b.column<std::int32_t>(c).begin());
      break;
    default:  // not a column type: a Schema holds none
      break;
  }
  if (auto* v = b.valid(c)) std::copy_n(e.valid.begin(), n, v);
}

void copy_column(const BatchView& in, std::size_t ic, BatchBuilder& b, std::size_t oc) {
  std::size_t n = static_cast<std::size_t>(in.nrows());
  if (n == 0) return;
  std::memcpy(b.data(oc), in.data(ic), n * element_size(in.type(ic)));
  if (auto* v = b.valid(oc)) {
    if (const auto* iv = in.valid(ic)) std::memcpy(v, iv, n);
  }
}

// ---- device paths (frame/kernels/ops.hpp) ----------------------------------------------------------------

using detail::column_view;
using detail::takes_device_paths;

/// Run f(exec, kernels::OpsKernels<B>{}) on the task's device backend B.
template <class F>
void on_ops_kernels(TaskContext& ctx, F&& f) {
  detail::on_device_backend(
      ctx, [&](const kernels::Exec& exec, auto tag) { f(exec, kernels::OpsKernels<typename decltype(tag)::type>{}); });
}

/// Column ic's mask into column oc of b (where both have one), with the memory-kind-aware copy.
void copy_mask_on(const ExecutionContext& context, const BatchView& in, std::size_t ic, BatchBuilder& b,
                  std::size_t oc) {
  const auto n = static_cast<std::size_t>(in.nrows());
  if (auto* v = n ? b.valid(oc) : nullptr)
    if (const auto* iv = in.valid(ic)) slab::copy(v, iv, n, context);
}

/// copy_column with the memory-kind-aware copy: in and b in the backend's memory.
void copy_column_on(const ExecutionContext& context, const BatchView& in, std::size_t ic, BatchBuilder& b,
                    std::size_t oc) {
  const auto n = static_cast<std::size_t>(in.nrows());
  if (n == 0) return;
  slab::copy(b.data(oc), in.data(ic), n * element_size(in.type(ic)), context);
  copy_mask_on(context, in, ic, b, oc);
}

/// detail::take_rows_on on the backend of `Ops` (an OpsKernels<B>).
template <class Ops>
void take_rows_on(TaskContext& ctx, const kernels::Exec& exec, Ops, const BatchView& in, const std::int64_t* rows,
                  std::int64_t k) {
  detail::take_rows_on<typename Ops::Backend>(ctx, exec, in, rows, k);
}

std::vector<bool> masks_of(const BatchView& in) {
  std::vector<bool> m;
  for (std::size_t c = 0; c < in.ncols(); ++c) m.push_back(in.nrows() > 0 && in.valid(c) != nullptr);
  return m;
}

// This rank's rows [begin, end) in local numbering, as one batch in host memory (frame persisted, `rows` its
// partitions' row counts). Only the partitions holding those rows are read, and only those rows' bytes copied (on a
// GPU, from device memory). Not collective.
std::vector<std::byte> local_rows_bytes(const Frame& f, const std::vector<std::int64_t>& rows, std::int64_t begin,
                                        std::int64_t end) {
  std::vector<std::vector<std::byte>> pieces;
  std::int64_t at = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::int64_t b = std::max(begin - at, std::int64_t{0}), e = std::min(end - at, rows[k]);
    if (b < e) {
      const Chunk& chunk = f.partitions()[k];
      auto [pin, v] = detail::view_chunk_in_place(chunk);
      detail::copy_rows_to_host(v, b, e, chunk.buffer()->execution(), pieces.emplace_back());
    }
    at += rows[k];
  }
  std::vector<BatchView> views;
  for (const auto& p : pieces) views.emplace_back(p);
  std::vector<std::byte> storage;
  concat_batches(views, types_of(f.schema()), storage);
  return storage;
}

std::vector<std::byte> rows_bytes(const Frame& f, std::int64_t begin, std::int64_t end) {
  const std::vector<std::int64_t> rows = f.local_partition_rows();
  // local_rows_bytes, collectively: a partition read failing on one rank fails on every rank, before the exchange
  // that follows.
  std::vector<std::byte> out;
  f.engine().comm().run_collectively([&] { out = local_rows_bytes(f, rows, begin, end); });
  return out;
}

LocalTable allgather_rows(const Frame& f, const std::vector<std::byte>& mine, std::int64_t first_index) {
  std::vector<std::byte> all;
  VCounts v = f.engine().comm().allgatherv(std::span<const std::byte>(mine), all);
  std::vector<LocalTable> tables;
  std::int64_t row = first_index;
  for (std::size_t r = 0; r < v.counts.size(); ++r) {
    BatchView view(std::span<const std::byte>(all.data() + v.displs[r], v.counts[r]));
    tables.push_back(to_local_table(view, f.schema(), row));
    row += view.nrows();
  }
  return concat(tables);
}

}  // namespace

Frame select(const Frame& frame, const std::vector<std::string>& columns) {
  Schema out = frame.schema().select(columns);
  auto idx = frame.schema().indices_of(columns);
  // A move of columns: on a device context the memory-kind-aware copy, no kernel needed.
  return detail::map_partitions_with(
      frame, out, "select",
      [idx, out](const BatchView& in, TaskContext& ctx) {
        std::vector<bool> m;
        for (auto i : idx) m.push_back(in.nrows() > 0 && in.valid(i) != nullptr);
        BatchBuilder b(ctx, in.nrows(), out, m);
        for (std::size_t k = 0; k < idx.size(); ++k) copy_column_on(ctx.execution(), in, idx[k], b, k);
      },
      true, takes_device_paths(frame));
}

namespace {
/// A compiled expression evaluated over `in` on backend B: values (out_type's layout) into `values`, validity
/// bits into `valid` (both backend memory, n rows). Returns the invalid rows' count.
template <class B>
std::int64_t evaluate_on(TaskContext& ctx, const kernels::Exec& exec, const detail::CompiledExpr& expr,
                         const BatchView& in, ElementType out_type, void* values, std::uint8_t* valid) {
  kernels::ExprProgram program = expr.bind(in);
  slab::detail::ScratchBytes tables(exec, expr.tables.size() * sizeof(std::uint64_t));
  if (!expr.tables.empty()) {
    slab::copy(tables.get(), expr.tables.data(), expr.tables.size() * sizeof(std::uint64_t), ctx.execution());
    program.tables = static_cast<const std::uint64_t*>(tables.get());
  }
  return kernels::ExprKernels<B>::evaluate(exec, program, in.nrows(), out_type, values, valid);
}

/// The device path of filter: the predicate's program, OpsKernels::filter_rows, one gather per column.
Frame filter_on_device(const Frame& frame, std::shared_ptr<const detail::CompiledExpr> expr) {
  return detail::map_partitions_with(
      frame, frame.schema(), "filter",
      [expr](const BatchView& in, TaskContext& ctx) {
        on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
          using B = typename decltype(ops)::Backend;
          const std::int64_t n = in.nrows();
          slab::detail::ScratchBytes pred(exec, static_cast<std::size_t>(n) * 2),
              rows(exec, static_cast<std::size_t>(n) * sizeof(std::int64_t));
          auto* p = static_cast<std::uint8_t*>(pred.get());
          (void)evaluate_on<B>(ctx, exec, *expr, in, ElementType::boolean, p, p + n);
          auto* r = static_cast<std::int64_t*>(rows.get());
          const std::int64_t k = n ? ops.filter_rows(exec, p, p + n, n, r) : 0;
          take_rows_on(ctx, exec, ops, in, r, k);
        });
      },
      false, true);
}

}  // namespace

Frame filter(const Frame& frame, const Expr& predicate) {
  Schema schema = frame.schema();
  SLAB_EXPECTS(predicate.type(schema) == ElementType::boolean, TypeError,
               "filter: the predicate " + predicate.to_string() + " is not boolean");
  if (takes_device_paths(frame))
    if (auto compiled = detail::compile_for_device(predicate, schema))
      return filter_on_device(frame, std::make_shared<const detail::CompiledExpr>(std::move(*compiled)));
  return map_partitions(frame, schema, "filter", [predicate, schema](const BatchView& in, TaskContext& ctx) {
    auto e = evaluate(predicate, in, schema);
    std::vector<std::int64_t> rows;
    for (std::size_t i = 0; i < e.bools.size(); ++i)
      if (e.bools[i] && (e.valid.empty() || e.valid[i])) rows.push_back(static_cast<std::int64_t>(i));
    take_rows(in, rows, ctx);
  });
}

Frame assign(const Frame& frame, const std::string& name, const Expr& value) {
  const Schema& schema = frame.schema();
  ElementType t = value.type(schema);
  Dictionary dict;
  if (t == ElementType::string) dict = string_dictionary(value, schema);
  Schema out = schema.with_column({name, t}, dict);
  std::size_t target = out.index_of(name);
  if (takes_device_paths(frame))
    if (auto compiled = detail::compile_for_device(value, schema)) {
      // The device path: the value's program into scratch, then the batch with the host's mask decision.
      auto expr = std::make_shared<const detail::CompiledExpr>(std::move(*compiled));
      return detail::map_partitions_with(
          frame, out, "assign",
          [expr, out, target, t](const BatchView& in, TaskContext& ctx) {
            on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
              using B = typename decltype(ops)::Backend;
              const std::int64_t n = in.nrows();
              const std::size_t es = element_size(t);
              slab::detail::ScratchBytes values(exec, static_cast<std::size_t>(n) * es),
                  valid(exec, static_cast<std::size_t>(n));
              auto* v = static_cast<std::uint8_t*>(valid.get());
              const std::int64_t invalid = evaluate_on<B>(ctx, exec, *expr, in, t, values.get(), v);
              std::vector<bool> m;
              for (std::size_t c = 0; c < out.size(); ++c)
                m.push_back(c == target ? expr->has_mask(in, invalid) : (n > 0 && in.valid(c) != nullptr));
              BatchBuilder b(ctx, n, out, m);
              for (std::size_t c = 0; c < out.size(); ++c)
                if (c != target) copy_column_on(ctx.execution(), in, c, b, c);
              if (n > 0) {
                slab::copy(b.data(target), values.get(), static_cast<std::size_t>(n) * es, ctx.execution());
                if (auto* bv = b.valid(target)) slab::copy(bv, v, static_cast<std::size_t>(n), ctx.execution());
              }
            });
          },
          true, true);
    }
  return map_partitions(
      frame, out, "assign",
      [value, schema, out, target](const BatchView& in, TaskContext& ctx) {
        auto e = evaluate(value, in, schema);
        std::vector<bool> m;
        for (std::size_t c = 0; c < out.size(); ++c)
          m.push_back(c == target ? !e.valid.empty() : (in.nrows() > 0 && in.valid(c) != nullptr));
        BatchBuilder b(ctx, in.nrows(), out, m);
        for (std::size_t c = 0; c < out.size(); ++c) {
          if (c == target)
            write_eval(e, b, c);
          else
            copy_column(in, c, b, c);
        }
      },
      true);
}

Frame astype(const Frame& frame, const std::string& column, ElementType to) {
  const Schema& schema = frame.schema();
  std::size_t c = schema.index_of(column);
  ElementType from = schema.type(c);
  if (from == to) return frame;
  SLAB_EXPECTS(from != ElementType::string && to != ElementType::string, TypeError,
               std::string("astype: cannot convert '") + column + "' from " + to_string(from) + " to " + to_string(to));
  Schema out = schema.with_column({column, to});
  if (takes_device_paths(frame)) {  // the program [column, cast] into the output column and its mask
    auto e = std::make_shared<detail::CompiledExpr>();
    e->type = to;
    e->columns = {c};
    e->program.ncolumns = 1;
    e->mask_rule = {0, 0};
    kernels::ExprStep& load = e->program.steps[0];
    load.op = kernels::ExprStepOp::column;
    load.kind = from == ElementType::float64   ? kernels::ExprKind::float64
                : from == ElementType::boolean ? kernels::ExprKind::boolean
                                               : kernels::ExprKind::int64;
    kernels::ExprStep& cast = e->program.steps[1];
    cast.op = kernels::ExprStepOp::cast;
    cast.kind = to == ElementType::float64   ? kernels::ExprKind::float64
                : to == ElementType::boolean ? kernels::ExprKind::boolean
                                             : kernels::ExprKind::int64;
    cast.a = 0;
    e->program.nsteps = 2;
    const bool nan_to_null = from == ElementType::float64 && to != ElementType::float64 && to != ElementType::boolean;
    return detail::map_partitions_with(
        frame, out, "astype",
        [c, out, e, nan_to_null, to](const BatchView& in, TaskContext& ctx) {
          on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
            using B = typename decltype(ops)::Backend;
            const std::int64_t n = in.nrows();
            auto m = masks_of(in);
            m.resize(out.size());
            if (nan_to_null) m[c] = true;
            BatchBuilder b(ctx, n, out, m);
            for (std::size_t k = 0; k < out.size(); ++k)
              if (k != c) copy_column_on(ctx.execution(), in, k, b, k);
            slab::detail::ScratchBytes valid(exec, b.valid(c) ? 0 : static_cast<std::size_t>(n));
            auto* v = b.valid(c) ? b.valid(c) : static_cast<std::uint8_t*>(valid.get());
            (void)evaluate_on<B>(ctx, exec, *e, in, to, b.data(c), v);
          });
        },
        true, true);
  }
  return map_partitions(
      frame, out, "astype",
      [c, from, to, out](const BatchView& in, TaskContext& ctx) {
        std::size_t n = static_cast<std::size_t>(in.nrows());
        auto m = masks_of(in);
        m.resize(out.size());
        bool nan_to_null = from == ElementType::float64 && to != ElementType::float64 && to != ElementType::boolean;
        if (nan_to_null) m[c] = true;
        BatchBuilder b(ctx, in.nrows(), out, m);
        for (std::size_t k = 0; k < out.size(); ++k)
          if (k != c) copy_column(in, k, b, k);
        const auto* iv = n ? in.valid(c) : nullptr;
        auto* ov = b.valid(c);
        for (std::size_t i = 0; i < n; ++i) {
          double d = 0;
          std::int64_t x = 0;
          bool isf = from == ElementType::float64;
          if (isf)
            d = in.column<double>(c)[i];
          else if (from == ElementType::boolean)
            x = in.column<std::uint8_t>(c)[i];
          else
            x = in.column<std::int64_t>(c)[i];
          bool ok = !iv || iv[i];
          if (to == ElementType::float64)
            b.column<double>(c)[i] = isf ? d : static_cast<double>(x);
          else if (to == ElementType::boolean)
            b.column<std::uint8_t>(c)[i] = isf ? (d != 0) : (x != 0);
          else {
            if (isf && std::isnan(d)) ok = false;
            b.column<std::int64_t>(c)[i] = isf ? (std::isnan(d) ? 0 : slab::kernels::cast_value<std::int64_t>(d)) : x;
          }
          if (ov) ov[i] = ok;
        }
      },
      true);
}

namespace {
/// fillna's device program for column c (of `in` and `out`, the filled schema).
detail::CompiledExpr fillna_program(const Schema& in, const Schema& out, std::size_t c, const Scalar& value) {
  using kernels::ExprKind;
  using kernels::ExprStepOp;
  detail::CompiledExpr e;
  e.type = out.type(c);
  e.columns = {c};
  e.program.ncolumns = 1;
  auto push = [&](kernels::ExprStep st) {
    e.program.steps[e.program.nsteps] = st;
    e.mask_rule.push_back(0);
    return static_cast<std::int16_t>(e.program.nsteps++);
  };
  const ElementType t = in.type(c);
  kernels::ExprStep col;
  col.op = ExprStepOp::column;
  col.kind = t == ElementType::string    ? ExprKind::code
             : t == ElementType::float64 ? ExprKind::float64
             : t == ElementType::boolean ? ExprKind::boolean
                                         : ExprKind::int64;
  const std::int16_t column = push(col);
  if (t == ElementType::string) {  // each input code's code in the new dictionary; a null becomes the value's
    const auto& id = *in.dictionary(c);
    const auto& od = *out.dictionary(c);
    for (const auto& str : id)
      e.tables.push_back(static_cast<std::uint64_t>(std::lower_bound(od.begin(), od.end(), str) - od.begin()));
    kernels::ExprStep remap;
    remap.op = ExprStepOp::code_table;
    remap.kind = ExprKind::code;
    remap.a = column;
    remap.mode = 1;
    remap.lo = out.code_of(c, std::get<std::string>(value));
    push(remap);
    return e;
  }
  kernels::ExprStep isnull;
  isnull.op = ExprStepOp::isnull;
  isnull.kind = ExprKind::boolean;
  isnull.a = column;
  const std::int16_t cond = push(isnull);
  kernels::ExprStep lit;
  lit.op = ExprStepOp::literal;
  if (auto* i = std::get_if<std::int64_t>(&value))
    lit.kind = ExprKind::int64, lit.bits = static_cast<std::uint64_t>(*i);
  else if (auto* d = std::get_if<double>(&value))
    lit.kind = ExprKind::float64, lit.bits = std::bit_cast<std::uint64_t>(*d);
  else
    lit.kind = ExprKind::boolean, lit.bits = std::get<bool>(value) ? 1 : 0;
  const std::int16_t fill = push(lit);
  kernels::ExprStep pick;
  pick.op = ExprStepOp::where;
  pick.kind = col.kind;
  pick.a = cond, pick.b = fill, pick.c = column;
  push(pick);
  return e;
}

}  // namespace

Frame fillna(const Frame& frame, const Scalar& value, const std::vector<std::string>& columns) {
  const Schema& schema = frame.schema();
  std::vector<std::size_t> cols;
  // A float fits an integer column only where it is an integer in int64's range: pandas refuses 2.5 for an Int64
  // column ("Invalid value '2.5' for dtype 'Int64'") rather than truncating it.
  const auto* d = std::get_if<double>(&value);
  const bool integral = d == nullptr || (std::trunc(*d) == *d && *d >= -0x1p63 && *d < 0x1p63);
  auto value_text = [&]() -> std::string {
    if (auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
    if (d != nullptr) {
      char buf[32];
      return std::string(buf, std::to_chars(buf, buf + sizeof buf, *d).ptr);
    }
    if (auto* b = std::get_if<bool>(&value)) return *b ? "True" : "False";
    if (auto* t = std::get_if<std::string>(&value)) return "'" + *t + "'";
    return "None";
  };
  auto fits = [&](ElementType t) {
    if (std::holds_alternative<std::string>(value)) return t == ElementType::string;
    if (std::holds_alternative<bool>(value)) return t == ElementType::boolean;
    if (t == ElementType::int64 || t == ElementType::timestamp) return integral;
    return t == ElementType::float64;
  };
  if (columns.empty()) {
    for (std::size_t c = 0; c < schema.size(); ++c)
      if (fits(schema.type(c))) cols.push_back(c);
  } else {
    cols = schema.indices_of(columns);
    for (auto c : cols)
      SLAB_EXPECTS(fits(schema.type(c)), TypeError,
                   "fillna: value " + value_text() + " does not fit column '" + schema.name(c) + "' (" +
                       std::string(to_string(schema.type(c))) + ")" +
                       (integral ? "" : ": a float that is not an integer cannot fill an integer column"));
  }
  Schema out = schema;
  for (auto c : cols)
    if (schema.type(c) == ElementType::string) {
      auto d = *schema.dictionary(c);
      const auto& s = std::get<std::string>(value);
      if (!std::binary_search(d.begin(), d.end(), s)) {
        d.insert(std::upper_bound(d.begin(), d.end(), s), s);
      }
      out.set_dictionary(c, make_dictionary(std::move(d)));
    }
  if (takes_device_paths(frame)) {
    // One program per filled column: where(isnull(c), value, c), or for strings the codes remapped into the new
    // dictionary with nulls as the value's code; the other columns copied.
    auto programs = std::make_shared<std::vector<std::pair<std::size_t, detail::CompiledExpr>>>();
    for (auto c : cols) programs->emplace_back(c, fillna_program(schema, out, c, value));
    return detail::map_partitions_with(
        frame, out, "fillna",
        [programs, out](const BatchView& in, TaskContext& ctx) {
          on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
            using B = typename decltype(ops)::Backend;
            const std::int64_t n = in.nrows();
            auto m = masks_of(in);
            for (const auto& pc : *programs) m[pc.first] = false;
            BatchBuilder b(ctx, n, out, m);
            std::vector<bool> filled(out.size(), false);
            for (const auto& pc : *programs) filled[pc.first] = true;
            for (std::size_t c = 0; c < out.size(); ++c)
              if (!filled[c]) copy_column_on(ctx.execution(), in, c, b, c);
            slab::detail::ScratchBytes valid(exec, static_cast<std::size_t>(n));
            for (const auto& [c, program] : *programs)
              (void)evaluate_on<B>(ctx, exec, program, in, out.type(c), b.data(c),
                                   static_cast<std::uint8_t*>(valid.get()));
          });
        },
        true, true);
  }
  return map_partitions(
      frame, out, "fillna",
      [cols, value, schema, out](const BatchView& in, TaskContext& ctx) {
        std::size_t n = static_cast<std::size_t>(in.nrows());
        auto m = masks_of(in);
        for (auto c : cols) m[c] = false;
        BatchBuilder b(ctx, in.nrows(), out, m);
        for (std::size_t c = 0; c < out.size(); ++c) {
          bool fill = std::find(cols.begin(), cols.end(), c) != cols.end();
          if (!fill) {
            copy_column(in, c, b, c);
            continue;
          }
          ElementType t = out.type(c);
          if (t == ElementType::string) {
            const auto& od = *out.dictionary(c);
            const auto& id = *schema.dictionary(c);
            auto fillcode = out.code_of(c, std::get<std::string>(value));
            auto ic = in.column<std::int32_t>(c);
            auto oc = b.column<std::int32_t>(c);
            for (std::size_t i = 0; i < n; ++i)
              oc[i] =
                  in.is_null(c, static_cast<std::int64_t>(i))
                      ? fillcode
                      : static_cast<std::int32_t>(
                            std::lower_bound(od.begin(), od.end(), id[static_cast<std::size_t>(ic[i])]) - od.begin());
            continue;
          }
          copy_column(in, c, b, c);
          for (std::size_t i = 0; i < n; ++i) {
            if (!in.is_null(c, static_cast<std::int64_t>(i))) continue;
            if (t == ElementType::float64)
              b.column<double>(c)[i] = std::holds_alternative<double>(value)
                                           ? std::get<double>(value)
                                           : static_cast<double>(std::get<std::int64_t>(value));
            else if (t == ElementType::boolean)
              b.column<std::uint8_t>(c)[i] = std::get<bool>(value);
            else
              b.column<std::int64_t>(c)[i] = std::holds_alternative<std::int64_t>(value)
                                                 ? std::get<std::int64_t>(value)
                                                 : static_cast<std::int64_t>(std::get<double>(value));
          }
        }
      },
      true);
}

Frame dropna(const Frame& frame, const std::vector<std::string>& subset) {
  const Schema& schema = frame.schema();
  std::vector<std::size_t> cols;
  if (subset.empty()) {
    cols.resize(schema.size());
    std::iota(cols.begin(), cols.end(), std::size_t{0});
  } else {
    cols = schema.indices_of(subset);
  }
  // The device path: OpsKernels::dropna_rows (at most kMaxKeyColumns columns per call) and one gather per column.
  const bool device = takes_device_paths(frame) && cols.size() <= static_cast<std::size_t>(kernels::kMaxKeyColumns);
  return detail::map_partitions_with(
      frame, schema, "dropna",
      [cols, device](const BatchView& in, TaskContext& ctx) {
        if (device && in.nrows() > 0) {
          on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
            std::vector<kernels::ColumnView> views;
            for (auto c : cols) views.push_back(column_view(in, c));
            slab::detail::ScratchBytes rows(exec, static_cast<std::size_t>(in.nrows()) * sizeof(std::int64_t));
            auto* r = static_cast<std::int64_t*>(rows.get());
            const std::int64_t k = ops.dropna_rows(exec, views.data(), static_cast<int>(views.size()), in.nrows(), r);
            take_rows_on(ctx, exec, ops, in, r, k);
          });
          return;
        }
        std::vector<std::int64_t> rows;
        for (std::int64_t i = 0; i < in.nrows(); ++i) {
          bool ok = true;
          for (auto c : cols) ok = ok && !in.is_null(c, i);
          if (ok) rows.push_back(i);
        }
        take_rows(in, rows, ctx);
      },
      false, device);
}

std::vector<std::pair<std::string, ElementType>> dtypes(const Frame& frame) {
  std::vector<std::pair<std::string, ElementType>> out;
  for (const auto& f : frame.schema().fields()) out.emplace_back(f.name, f.type);
  return out;
}

LocalTable head(const Frame& frame, std::int64_t n) {
  std::int64_t off = frame.global_offset();
  std::int64_t local = frame.local_len();
  // pandas: head(-n) is every row but the last n (n is the same on every rank, so either all reduce or none).
  std::int64_t end = n;  // global end of the head
  if (n < 0) end = std::max<std::int64_t>(frame.engine().comm().allreduce(local, ReduceOp::sum) + n, 0);
  const_cast<Frame&>(frame).persist();
  std::int64_t take = std::clamp<std::int64_t>(end - off, 0, local);
  return allgather_rows(frame, rows_bytes(frame, 0, take), 0);
}

LocalTable tail(const Frame& frame, std::int64_t n) {
  std::int64_t off = frame.global_offset();
  std::int64_t local = frame.local_len();
  std::int64_t total = frame.engine().comm().allreduce(local, ReduceOp::sum);
  const_cast<Frame&>(frame).persist();
  // Global first row of the tail; pandas: tail(-n) is every row but the first n.
  std::int64_t first = n >= 0 ? std::max<std::int64_t>(total - n, 0) : std::min<std::int64_t>(-n, total);
  std::int64_t b = std::clamp<std::int64_t>(first - off, 0, local);
  return allgather_rows(frame, rows_bytes(frame, b, local), first);
}

// pandas' describe() of the int64 and float64 columns. No rank holds a whole column: count, mean, std, min and max
// are the columns' moments combined over the ranks (as Series'), the quartiles the distributed sort's order
// statistics (quantile.hpp, out of core, on the device where it has a path).
LocalTable describe(const Frame& frame) {
  const Schema& schema = frame.schema();
  const_cast<Frame&>(frame).persist();
  LocalTable out;
  out.labels = {"count", "mean", "std", "min", "25%", "50%", "75%", "max"};
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> numeric;
  for (std::size_t c = 0; c < schema.size(); ++c)
    if (schema.type(c) == ElementType::int64 || schema.type(c) == ElementType::float64)
      numeric.push_back(schema.name(c));
  const std::vector<detail::Moments> moments = detail::global_moments(frame, numeric, "describe");  // one pass
  for (std::size_t k = 0; k < numeric.size(); ++k) {
    const detail::Moments& m = moments[k];
    std::vector<double> col(8, nan);
    col[0] = m.count;
    if (m.count > 0) {
      col[1] = m.sum / m.count;  // pandas: sum / count (an infinity gives +-inf)
      col[2] = m.count > 1 && std::isfinite(m.sum) ? std::sqrt(std::max(m.m2, 0.0) / (m.count - 1)) : nan;
      col[3] = m.min;
      col[7] = m.max;
      const std::vector<double> q = quantile(frame, numeric[k], {0.25, 0.5, 0.75});  // collective, every rank
      std::copy(q.begin(), q.end(), col.begin() + 4);
    }
    out.columns.push_back(LocalColumn::float64(numeric[k], std::move(col)));
  }
  return out;
}

namespace {
// Rows of `in` whose key columns equal (as values, nulls equal, NaN equal).
bool keys_equal(const BatchView& a, std::int64_t i, const BatchView& b, std::int64_t j,
                const std::vector<std::size_t>& keys) {
  for (auto k : keys) {
    bool na = a.is_null(k, i), nb = b.is_null(k, j);
    if (na || nb) {
      if (na != nb) return false;
      continue;
    }
    std::size_t es = element_size(a.type(k));
    const std::byte* pa = a.data(k) + i * static_cast<std::int64_t>(es);
    const std::byte* pb = b.data(k) + j * static_cast<std::int64_t>(es);
    if (a.type(k) == ElementType::float64) {
      double x, y;
      std::memcpy(&x, pa, 8);
      std::memcpy(&y, pb, 8);
      if (x != y) return false;
    } else if (std::memcmp(pa, pb, es) != 0) {
      return false;
    }
  }
  return true;
}
// First row of each distinct key, in order; counts per kept row.
std::vector<std::int64_t> distinct_rows(const BatchView& in, const Schema& schema, const std::vector<std::size_t>& keys,
                                        std::vector<std::int64_t>* counts, const std::int64_t* weights = nullptr) {
  auto h = hash_rows(in, schema, keys);
  std::unordered_multimap<std::uint64_t, std::size_t> seen;
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < in.nrows(); ++i) {
    auto range = seen.equal_range(h[static_cast<std::size_t>(i)]);
    bool found = false;
    for (auto it = range.first; it != range.second; ++it)
      if (keys_equal(in, rows[it->second], in, i, keys)) {
        if (counts) (*counts)[it->second] += weights ? weights[i] : 1;
        found = true;
        break;
      }
    if (!found) {
      seen.emplace(h[static_cast<std::size_t>(i)], rows.size());
      rows.push_back(i);
      if (counts) counts->push_back(weights ? weights[i] : 1);
    }
  }
  return rows;
}

/// Rows a and b of a host column compared by value (nulls are the caller's business).
bool value_less(const LocalColumn& c, std::size_t a, std::size_t b) {
  switch (c.type) {
    case ElementType::string:
      return c.strings[a] < c.strings[b];
    case ElementType::float64:
      return c.floats[a] < c.floats[b];
    case ElementType::boolean:
      return c.bools[a] < c.bools[b];
    default:
      return c.ints[a] < c.ints[b];
  }
}

}  // namespace

/// distinct_rows + take_rows on the device: the keys encoded with their null flags (KeyKernels::encode: nulls,
/// NaN and code -1 are one null, -0.0 is 0.0, as keys_equal compares), each distinct key's first row
/// (OpsKernels::unique), those rows put back in row order (SortKernels::permutation), then one gather per column.
template <class Ops>
void dedup_on_device(TaskContext& ctx, const kernels::Exec& exec, Ops ops, const BatchView& in,
                     const std::vector<std::size_t>& keys) {
  using B = typename Ops::Backend;
  const std::int64_t n = in.nrows();
  if (n == 0) return take_rows_on(ctx, exec, ops, in, nullptr, 0);
  kernels::KeyLayout layout;
  layout.ncols = static_cast<int>(keys.size());
  layout.dropna = false;
  const int W = layout.width();
  slab::detail::ScratchBytes block(
      exec, static_cast<std::size_t>(W + 3) * static_cast<std::size_t>(n) * 8 + static_cast<std::size_t>(n));
  auto* base = static_cast<std::uint64_t*>(block.get());
  std::vector<std::uint64_t*> words;
  for (int w = 0; w < W; ++w) words.push_back(base + w * n);
  auto* first = reinterpret_cast<std::int64_t*>(base + W * n);
  auto* perm = first + n;
  auto* rows = perm + n;
  auto* keep = reinterpret_cast<std::uint8_t*>(rows + n);
  std::vector<kernels::KeyColumn> cols;
  for (auto k : keys) cols.push_back({column_view(in, k), nullptr});
  kernels::KeyKernels<B>::encode(exec, cols.data(), layout, n, words.data(), keep);
  std::vector<int> bits;
  for (int w = 0; w < W; ++w) bits.push_back(w % 2 == 0 ? 1 : 64);  // null flag words, value words
  const std::int64_t g = ops.unique(exec, words.data(), W, bits.data(), n, first, nullptr);
  const std::uint64_t* by_row[1] = {reinterpret_cast<const std::uint64_t*>(first)};
  const int row_bits[1] = {kernels::bits_for(static_cast<std::uint64_t>(n - 1))};
  kernels::SortKernels<B>::permutation(exec, by_row, 1, row_bits, g, perm);
  kernels::GatherKernels<B>::column(exec, {ElementType::int64, first, nullptr}, perm, g, rows, nullptr);
  take_rows_on(ctx, exec, ops, in, rows, g);
}

Frame drop_duplicates(const Frame& frame, const std::vector<std::string>& subset) {
  const Schema& schema = frame.schema();
  std::vector<std::string> names = subset.empty() ? schema.names() : subset;
  auto keys = schema.indices_of(names);
  if (takes_device_paths(frame) && keys.size() <= static_cast<std::size_t>(kernels::kMaxKeyColumns)) {
    auto dedup = [keys](const BatchView& in, TaskContext& ctx) {
      on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) { dedup_on_device(ctx, exec, ops, in, keys); });
    };
    Frame local = detail::map_partitions_with(frame, schema, "drop_duplicates_local", dedup, false, true);
    return detail::map_partitions_with(shuffle(local, names, 0), schema, "drop_duplicates", dedup, false, true);
  }
  auto dedup = [schema, keys](const BatchView& in, TaskContext& ctx) {
    auto rows = distinct_rows(in, schema, keys, nullptr);
    take_rows(in, rows, ctx);
  };
  Frame local = map_partitions(frame, schema, "drop_duplicates_local", dedup);
  // As many output partitions as keep one under the memory budget: with one per rank, its task would hold all of
  // this rank's distinct rows at once.
  return map_partitions(shuffle(local, names, 0), schema, "drop_duplicates", dedup);
}

namespace {
/// value_counts' result sorted as pandas: by count descending, then value.
LocalTable sorted_counts(const LocalTable& t);
}  // namespace

/// value_counts' count_fn on the device: the value's key word (nulls dropped by KeyKernels::encode), one group
/// per distinct value (GroupbyKernels::aggregate: its first row, its rows, or with counts their sum), then the
/// first row's value gathered beside the count. The same rows as the host's, in key order instead of first-seen
/// order (value_counts sorts the gathered result either way).
template <class Ops>
void count_on_device(TaskContext& ctx, const kernels::Exec& exec, Ops, const BatchView& in, const Schema& counted,
                     bool has_counts) {
  using B = typename Ops::Backend;
  const std::int64_t n = in.nrows();
  slab::detail::ScratchBytes block(exec, static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * 33);
  auto* word = static_cast<std::uint64_t*>(block.get());
  auto* first = reinterpret_cast<std::int64_t*>(word + n);
  auto* size = first + n;
  auto* sum = reinterpret_cast<std::uint64_t*>(size + n);
  auto* keep = reinterpret_cast<std::uint8_t*>(sum + n);
  std::int64_t g = 0;
  if (n > 0) {
    kernels::KeyLayout layout;
    layout.ncols = 1;
    const kernels::KeyColumn key{column_view(in, 0), nullptr};
    std::uint64_t* words[1] = {word};
    kernels::KeyKernels<B>::encode(exec, &key, layout, n, words, keep);
    const int bits[1] = {64};
    kernels::AggColumn weights;
    weights.values = has_counts ? column_view(in, 1) : kernels::ColumnView{};
    weights.out.sum = sum;
    kernels::GroupsOut groups;
    slab::detail::ScratchBytes keys_scratch(exec, static_cast<std::size_t>(n) * 8);  // the groups' key words
    std::uint64_t* key_out[1] = {static_cast<std::uint64_t*>(keys_scratch.get())};
    groups.keys = key_out;
    groups.size = size;
    groups.first_row = first;
    const std::uint64_t* const wp[1] = {word};
    g = kernels::GroupbyKernels<B>::aggregate(exec, wp, 1, bits, n, keep, &weights, has_counts ? 1 : 0, 0, groups);
  }
  BatchBuilder b(ctx, g, counted, {});
  if (g == 0) return;
  kernels::GatherKernels<B>::column(exec, column_view(in, 0), first, g, b.data(0), nullptr);
  slab::copy(b.data(1), has_counts ? static_cast<const void*>(sum) : static_cast<const void*>(size),
             static_cast<std::size_t>(g) * 8, ctx.execution());
}

LocalTable value_counts(const Frame& frame, const std::string& column) {
  Schema one = frame.schema().select({column});
  Schema counted = one.with_column({"count", ElementType::int64});
  if (takes_device_paths(frame)) {
    auto fn = [counted](bool has_counts) {
      return [counted, has_counts](const BatchView& in, TaskContext& ctx) {
        on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
          count_on_device(ctx, exec, ops, in, counted, has_counts);
        });
      };
    };
    Frame local =
        detail::map_partitions_with(select(frame, {column}), counted, "value_counts_local", fn(false), false, true);
    Frame reduced =
        detail::map_partitions_with(shuffle(local, {column}, 0), counted, "value_counts", fn(true), false, true);
    return sorted_counts(reduced.gather_all());
  }
  auto count_fn = [counted](const BatchView& in, TaskContext& ctx, bool has_counts) {
    std::vector<std::int64_t> counts;
    // Drop nulls first.
    std::vector<std::int64_t> nonnull;
    for (std::int64_t i = 0; i < in.nrows(); ++i)
      if (!in.is_null(0, i)) nonnull.push_back(i);
    std::vector<std::byte> tmp;
    take_rows(in, nonnull, tmp);
    BatchView v(tmp);
    // With counts (the reduce side): each row's count, not 1, goes to its value's first row.
    const std::int64_t* weights = has_counts ? v.column<std::int64_t>(1).data() : nullptr;
    auto rows = distinct_rows(v, counted, {0}, &counts, weights);
    BatchBuilder b(ctx, static_cast<std::int64_t>(rows.size()), counted, {});
    std::size_t es = element_size(counted.type(0));
    for (std::size_t k = 0; k < rows.size(); ++k) {
      std::memcpy(b.data(0) + k * es, v.data(0) + static_cast<std::size_t>(rows[k]) * es, es);
      b.column<std::int64_t>(1)[k] = counts[k];
    }
  };
  Frame sel = select(frame, {column});
  Frame local = map_partitions(sel, counted, "value_counts_local",
                               [count_fn](const BatchView& in, TaskContext& ctx) { count_fn(in, ctx, false); });
  Frame reduced = map_partitions(shuffle(local, {column}, 0), counted, "value_counts",
                                 [count_fn](const BatchView& in, TaskContext& ctx) { count_fn(in, ctx, true); });
  return sorted_counts(reduced.gather_all());
}

namespace {
LocalTable sorted_counts(const LocalTable& t) {
  std::vector<std::size_t> order(static_cast<std::size_t>(t.nrows()));
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto& key = t.columns[0];
  const auto& cnt = t.columns[1].ints;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cnt[a] != cnt[b]) return cnt[a] > cnt[b];
    return value_less(key, a, b);
  });
  LocalTable out;
  for (const auto& c : t.columns) {
    LocalColumn o;
    o.name = c.name;
    o.type = c.type;
    for (auto i : order) o.push_from(c, i);
    out.columns.push_back(std::move(o));
  }
  return out;
}
}  // namespace

LocalTable unique(const Frame& frame, const std::string& column) {
  Frame d = drop_duplicates(select(frame, {column}), {column});
  LocalTable t = d.gather_all();
  const auto& c = t.columns[0];
  std::vector<std::size_t> order(c.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    bool na = c.is_null(a), nb = c.is_null(b);
    if (na || nb) return !na && nb;  // nulls last
    return value_less(c, a, b);
  });
  LocalTable out;
  LocalColumn o;
  o.name = c.name;
  o.type = c.type;
  for (auto i : order) o.push_from(c, i);
  out.columns.push_back(std::move(o));
  return out;
}

std::int64_t nunique(const Frame& frame, const std::string& column) {
  Frame d = drop_duplicates(dropna(select(frame, {column})), {column});
  return d.len();
}

// ---- scans and shifts ------------------------------------------------------------------------------------

// The int64/float64 columns named (all of them when none are named). @throws TypeError for another type.
static std::vector<std::size_t> numeric_columns(const Schema& schema, const std::vector<std::string>& columns,
                                                const char* op) {
  std::vector<std::size_t> cols;
  if (columns.empty()) {
    for (std::size_t c = 0; c < schema.size(); ++c)
      if (schema.type(c) == ElementType::int64 || schema.type(c) == ElementType::float64) cols.push_back(c);
    return cols;
  }
  cols = schema.indices_of(columns);
  for (auto c : cols)
    SLAB_EXPECTS(schema.type(c) == ElementType::int64 || schema.type(c) == ElementType::float64, TypeError,
                 std::string(op) + ": column '" + schema.name(c) + "' is not int64 or float64");
  return cols;
}

Frame cumsum(const Frame& frame, const std::vector<std::string>& columns) {
  const Schema& schema = frame.schema();
  const std::vector<std::size_t> cols = numeric_columns(schema, columns, "cumsum");
  const bool device = takes_device_paths(frame);
  if (!device) note_host_fallback(frame.engine(), "cumsum");
  const_cast<Frame&>(frame).persist();
  const Comm& comm = frame.engine().comm();
  std::size_t nc = cols.size();
  // Per partition sums (as double for float columns, int64 bits for int columns).
  std::vector<std::vector<double>> fsum;
  std::vector<std::vector<std::int64_t>> isum;
  // Read back outside any task: a failure on one rank fails on every rank, not in the allgather below.
  comm.run_collectively([&] {
    if (device) {  // one task per partition: each column's total (OpsKernels::column_sum), read back here
      TaskQueue& tasks = frame.engine().tasks();
      std::vector<Chunk> totals;
      for (const auto& p : frame.partitions())
        totals.push_back(tasks.submit(
            "cumsum-total", {p},
            [cols](TaskContext& ctx) {
              const BatchView in = input_batch(ctx, 0);
              std::vector<std::uint64_t> t(cols.size() + 1, 0);  // + 1: never an empty output
              if (in.nrows() > 0)
                on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
                  for (std::size_t k = 0; k < cols.size(); ++k)
                    t[k] = ops.column_sum(exec, column_view(in, cols[k]), in.nrows());
                });
              auto out = ctx.output(t.size() * sizeof(std::uint64_t));
              slab::copy(out.data(), t.data(), out.size(), ctx.execution());
            },
            device_task()));
      tasks.persist(std::span<const Chunk>(totals));
      for (const Chunk& c : totals) {
        std::vector<std::uint64_t> t(nc + 1);
        Pin pin = c.buffer()->pin();
        slab::copy(t.data(), pin.data(), t.size() * sizeof(std::uint64_t), tasks.memory().execution());
        std::vector<double> fs(nc, 0);
        std::vector<std::int64_t> is(nc, 0);
        for (std::size_t k = 0; k < nc; ++k) {
          if (schema.type(cols[k]) == ElementType::float64)
            fs[k] = std::bit_cast<double>(t[k]);
          else
            is[k] = static_cast<std::int64_t>(t[k]);
        }
        fsum.push_back(fs);
        isum.push_back(is);
      }
    }
    for (const auto& p : device ? std::vector<Chunk>{} : frame.partitions()) {
      auto [pin, v] = view_chunk(p);
      std::vector<double> fs(nc, 0);
      std::vector<std::int64_t> is(nc, 0);
      for (std::size_t k = 0; k < nc; ++k)
        for (std::int64_t i = 0; i < v.nrows(); ++i) {
          if (v.is_null(cols[k], i)) continue;
          if (schema.type(cols[k]) == ElementType::float64)
            fs[k] += v.column<double>(cols[k])[static_cast<std::size_t>(i)];
          else
            is[k] += v.column<std::int64_t>(cols[k])[static_cast<std::size_t>(i)];
        }
      fsum.push_back(fs);
      isum.push_back(is);
    }
  });
  // Exclusive scan over ranks: allgather per-rank totals.
  std::vector<double> ftot(nc, 0);
  std::vector<std::int64_t> itot(nc, 0);
  for (std::size_t j = 0; j < fsum.size(); ++j)
    for (std::size_t k = 0; k < nc; ++k) {
      ftot[k] += fsum[j][k];
      itot[k] += isum[j][k];
    }
  std::vector<double> fall(nc * static_cast<std::size_t>(comm.size()));
  std::vector<std::int64_t> iall(nc * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const double>(ftot), std::span<double>(fall));
  comm.allgather(std::span<const std::int64_t>(itot), std::span<std::int64_t>(iall));
  std::vector<double> foff(nc, 0);
  std::vector<std::int64_t> ioff(nc, 0);
  for (int r = 0; r < comm.rank(); ++r)
    for (std::size_t k = 0; k < nc; ++k) {
      foff[k] += fall[static_cast<std::size_t>(r) * nc + k];
      ioff[k] += iall[static_cast<std::size_t>(r) * nc + k];
    }
  std::vector<Chunk> parts;
  for (std::size_t j = 0; j < frame.partitions().size(); ++j) {
    auto fo = foff;
    auto io = ioff;
    parts.push_back(frame.engine().tasks().submit(
        "cumsum", {frame.partitions()[j]},
        [schema, cols, fo, io, device](TaskContext& ctx) {
          BatchView in = input_batch(ctx, 0);
          BatchBuilder b(ctx, in.nrows(), schema, masks_of(in));
          if (device && in.nrows() > 0) {  // the other columns copied, each scanned one by OpsKernels::cumsum
            on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
              std::vector<bool> scanned(schema.size(), false);
              for (auto c : cols) scanned[c] = true;
              for (std::size_t c = 0; c < schema.size(); ++c)
                if (!scanned[c]) copy_column_on(ctx.execution(), in, c, b, c);
              for (std::size_t k = 0; k < cols.size(); ++k) {
                const std::size_t c = cols[k];
                copy_mask_on(ctx.execution(), in, c, b, c);  // the scan keeps null rows' values, not their mask
                const std::uint64_t offset = schema.type(c) == ElementType::float64
                                                 ? std::bit_cast<std::uint64_t>(fo[k])
                                                 : static_cast<std::uint64_t>(io[k]);
                ops.cumsum(exec, column_view(in, c), in.nrows(), offset, b.data(c));
              }
            });
            return;
          }
          for (std::size_t c = 0; c < schema.size(); ++c) copy_column(in, c, b, c);
          for (std::size_t k = 0; k < cols.size(); ++k) {
            std::size_t c = cols[k];
            double fs = fo[k];
            std::int64_t is = io[k];
            for (std::int64_t i = 0; i < in.nrows(); ++i) {
              if (in.is_null(c, i)) continue;
              auto ui = static_cast<std::size_t>(i);
              if (schema.type(c) == ElementType::float64)
                b.column<double>(c)[ui] = fs += in.column<double>(c)[ui];
              else
                b.column<std::int64_t>(c)[ui] = is += in.column<std::int64_t>(c)[ui];
            }
          }
        },
        device ? device_task() : TaskOptions{}));
    for (std::size_t k = 0; k < nc; ++k) {
      foff[k] += fsum[j][k];
      ioff[k] += isum[j][k];
    }
  }
  return Frame(frame.engine(), schema, std::move(parts), frame.partition_rows());
}

namespace {
/**
 * shift_impl's device path for one partition: per shifted column, the halo rows and the partition's own rows
 * copied into one contiguous extended column in the backend's memory ([halo | own] for periods > 0, [own | halo]
 * otherwise; a mask of ones for a side that has none), then OpsKernels::shift into b; the other columns copied.
 */
template <class Ops>
void shift_on_device(TaskContext& ctx, const kernels::Exec& exec, Ops ops, const BatchView& in, const BatchView& halo,
                     std::int64_t periods, const std::vector<std::size_t>& cols, bool diff, BatchBuilder& b) {
  const ExecutionContext& context = ctx.execution();
  const std::int64_t n = in.nrows(), h = halo.nrows(), ext_n = h + n;
  const std::int64_t own_at = periods > 0 ? h : 0, halo_at = periods > 0 ? 0 : n;
  std::vector<bool> shifted(in.ncols(), false);
  for (auto c : cols) shifted[c] = true;
  for (std::size_t c = 0; c < in.ncols(); ++c)
    if (!shifted[c]) copy_column_on(context, in, c, b, c);
  const std::vector<std::uint8_t> ones(static_cast<std::size_t>(std::max(n, h)), 1);
  for (auto c : cols) {
    const std::size_t es = element_size(in.type(c));
    slab::detail::ScratchBytes values(exec, static_cast<std::size_t>(ext_n) * es);
    auto* v = static_cast<std::byte*>(values.get());
    slab::copy(v + own_at * es, in.data(c), static_cast<std::size_t>(n) * es, context);
    if (h > 0) slab::copy(v + halo_at * es, halo.data(c), static_cast<std::size_t>(h) * es, context);
    const std::uint8_t* own_mask = in.valid(c);
    const std::uint8_t* halo_mask = h > 0 ? halo.valid(c) : nullptr;
    const bool masked = own_mask || halo_mask;
    slab::detail::ScratchBytes mask(exec, masked ? static_cast<std::size_t>(ext_n) : 0);
    auto* m = static_cast<std::uint8_t*>(mask.get());
    if (masked) {
      slab::copy(m + own_at, own_mask ? own_mask : ones.data(), static_cast<std::size_t>(n), context);
      if (h > 0) slab::copy(m + halo_at, halo_mask ? halo_mask : ones.data(), static_cast<std::size_t>(h), context);
    }
    ops.shift(exec, kernels::ColumnView{in.type(c), v, masked ? m : nullptr}, ext_n, own_at, n, periods, diff,
              b.data(c), b.valid(c));
  }
}

// Shift the chosen columns by `periods` using halos from other partitions/ranks; when `diff`, subtract.
Frame shift_impl(const Frame& frame, std::int64_t periods, std::vector<std::size_t> cols, bool diff) {
  const bool device = takes_device_paths(frame);
  if (!device) note_host_fallback(frame.engine(), diff ? "diff" : "shift");
  const Schema& schema = frame.schema();
  const_cast<Frame&>(frame).persist();
  const Comm& comm = frame.engine().comm();
  std::int64_t k = periods < 0 ? -periods : periods;
  // Edge rows of each local partition: the last k (periods > 0) or first k (periods < 0), as batches.
  std::vector<std::byte> edges;          // concatenated batches
  std::vector<std::int64_t> edge_sizes;  // bytes per local partition
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allgatherv
    for (const auto& p : frame.partitions()) {
      // Only the edge rows are copied (on a GPU, out of device memory).
      auto [pin, v] = detail::view_chunk_in_place(p);
      const std::int64_t m = std::min(k, v.nrows()), first = periods > 0 ? v.nrows() - m : 0;
      std::vector<std::byte> b;
      detail::copy_rows_to_host(v, first, first + m, p.buffer()->execution(), b);
      edge_sizes.push_back(static_cast<std::int64_t>(b.size()));
      edges.insert(edges.end(), b.begin(), b.end());
    }
  });
  std::vector<std::byte> all_edges;
  comm.allgatherv(std::span<const std::byte>(edges), all_edges);
  std::vector<std::int64_t> all_sizes;
  VCounts pc = comm.allgatherv(std::span<const std::int64_t>(edge_sizes), all_sizes);
  auto shared = std::make_shared<std::vector<std::byte>>(std::move(all_edges));
  std::vector<std::size_t> offsets(all_sizes.size() + 1, 0);
  for (std::size_t i = 0; i < all_sizes.size(); ++i)
    offsets[i + 1] = offsets[i] + static_cast<std::size_t>(all_sizes[i]);
  std::size_t first_global = pc.displs[static_cast<std::size_t>(comm.rank())];
  std::size_t nglobal = all_sizes.size();
  std::vector<Chunk> parts;
  for (std::size_t j = 0; j < frame.partitions().size(); ++j) {
    std::size_t g = first_global + j;
    parts.push_back(frame.engine().tasks().submit(
        diff ? "diff" : "shift", {frame.partitions()[j]},
        [=](TaskContext& ctx) {
          BatchView in = input_batch(ctx, 0);
          std::int64_t n = in.nrows();
          // The halo: k rows before (periods > 0) or after (periods < 0) this partition, nearest last/first.
          std::vector<BatchView> halo_parts;  // in global order
          std::int64_t have = 0;
          if (periods > 0) {
            for (std::size_t q = g; q-- > 0 && have < k;) {
              BatchView e(std::span<const std::byte>(shared->data() + offsets[q], offsets[q + 1] - offsets[q]));
              halo_parts.insert(halo_parts.begin(), e);
              have += e.nrows();
            }
          } else {
            for (std::size_t q = g + 1; q < nglobal && have < k; ++q) {
              BatchView e(std::span<const std::byte>(shared->data() + offsets[q], offsets[q + 1] - offsets[q]));
              halo_parts.push_back(e);
              have += e.nrows();
            }
          }
          std::vector<std::byte> halo_bytes;
          concat_batches(halo_parts, types_of(schema), halo_bytes);
          BatchView halo(halo_bytes);
          // Source of output row i: row i - periods of the extended sequence [halo | in] or [in | halo].
          std::vector<bool> m = masks_of(in);
          for (auto c : cols) m[c] = schema.type(c) != ElementType::string;
          BatchBuilder b(ctx, n, schema, m);
          if (device && n > 0) {
            on_ops_kernels(ctx, [&](const kernels::Exec& exec, auto ops) {
              shift_on_device(ctx, exec, ops, in, halo, periods, cols, diff, b);
            });
            return;
          }
          for (std::size_t c = 0; c < schema.size(); ++c) copy_column(in, c, b, c);
          for (auto c : cols) {
            std::size_t es = element_size(schema.type(c));
            for (std::int64_t i = 0; i < n; ++i) {
              std::int64_t s = i - periods;  // in in's numbering
              const BatchView* src = &in;
              std::int64_t row = s;
              bool ok = true;
              if (s < 0) {
                row = halo.nrows() + s;  // periods > 0: halo precedes
                src = &halo;
                ok = row >= 0;
              } else if (s >= n) {
                row = s - n;
                src = &halo;
                ok = row < halo.nrows();
              }
              auto ui = static_cast<std::size_t>(i);
              bool valid = ok && !src->is_null(c, row);
              if (!diff) {
                if (ok)
                  std::memcpy(b.data(c) + ui * es, src->data(c) + static_cast<std::size_t>(row) * es, es);
                else if (schema.type(c) == ElementType::string)
                  b.column<std::int32_t>(c)[ui] = -1;
                else
                  std::memset(b.data(c) + ui * es, 0, es);
                if (auto* v = b.valid(c)) v[i] = ok && src->is_valid(c, row);
              } else {
                bool cur = !in.is_null(c, i);
                if (schema.type(c) == ElementType::float64) {
                  double d = valid && cur
                                 ? in.column<double>(c)[ui] - src->column<double>(c)[static_cast<std::size_t>(row)]
                                 : std::nan("");
                  b.column<double>(c)[ui] = d;
                  if (auto* v = b.valid(c)) v[i] = valid && cur;
                } else {
                  b.column<std::int64_t>(c)[ui] =
                      valid && cur
                          ? in.column<std::int64_t>(c)[ui] - src->column<std::int64_t>(c)[static_cast<std::size_t>(row)]
                          : 0;
                  if (auto* v = b.valid(c)) v[i] = valid && cur;
                }
              }
            }
          }
        },
        device ? device_task() : TaskOptions{}));
  }
  return Frame(frame.engine(), schema, std::move(parts), frame.partition_rows());
}
}  // namespace

Frame shift(const Frame& frame, std::int64_t periods, const std::vector<std::string>& columns) {
  const Schema& schema = frame.schema();
  std::vector<std::size_t> cols;
  if (columns.empty()) {
    cols.resize(schema.size());
    std::iota(cols.begin(), cols.end(), std::size_t{0});
  } else {
    cols = schema.indices_of(columns);
  }
  return shift_impl(frame, periods, cols, false);
}

Frame diff(const Frame& frame, std::int64_t periods, const std::vector<std::string>& columns) {
  return shift_impl(frame, periods, numeric_columns(frame.schema(), columns, "diff"), true);
}

}  // namespace slab::frame
