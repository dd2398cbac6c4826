#include "frame/groupby/transform_device.hpp"

#include "frame/device_paths.hpp"
#include "frame/groupby/segments.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/transform.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame::detail {

namespace {

using slab::detail::ScratchBytes;

// (The helper is unused in a build without device backends, where no device path is instantiated.)
/// The first `width` columns of a batch as key words.
[[maybe_unused]] std::vector<const std::uint64_t*> word_columns(const BatchView& b, int width) {
  std::vector<const std::uint64_t*> words(static_cast<std::size_t>(width));
  for (int w = 0; w < width; ++w)
    words[static_cast<std::size_t>(w)] = reinterpret_cast<const std::uint64_t*>(b.data(static_cast<std::size_t>(w)));
  return words;
}

template <class B>
void tag_on(TaskContext& ctx, const kernels::Exec& exec, const KeyEncoder& enc, const Schema& tag_schema,
            bool has_value, std::size_t vcol, std::int64_t first_row) {
  const BatchView in = input_batch(ctx, 0);
  const std::int64_t n = in.nrows();
  const int W = enc.width();
  ScratchBytes word_block(exec, static_cast<std::size_t>(W) * static_cast<std::size_t>(n) * 8);
  ScratchBytes keep(exec, static_cast<std::size_t>(n)), rows(exec, static_cast<std::size_t>(n) * 8);
  std::vector<std::uint64_t*> words(static_cast<std::size_t>(W));
  for (int w = 0; w < W; ++w)
    words[static_cast<std::size_t>(w)] = static_cast<std::uint64_t*>(word_block.get()) + w * n;
  std::int64_t kept = 0;
  if (n > 0) {
    std::vector<kernels::KeyColumn> keys;
    for (std::size_t k = 0; k < enc.cols.size(); ++k) keys.push_back({column_view(in, enc.cols[k]), nullptr});
    auto* keep_flags = static_cast<std::uint8_t*>(keep.get());
    kernels::KeyKernels<B>::encode(exec, keys.data(), kernels::layout_of(enc), n, words.data(), keep_flags);
    kept = kernels::GatherKernels<B>::select_rows(exec, keep_flags, n, static_cast<std::int64_t*>(rows.get()));
  }
  const bool masked = has_value && n > 0 && in.valid(vcol) != nullptr;
  std::vector<bool> masks(tag_schema.size(), false);
  masks.back() = masked;
  BatchBuilder out(ctx, kept, tag_schema, masks);
  if (kept == 0) return;
  std::vector<std::uint64_t*> out_words(static_cast<std::size_t>(W));
  for (int w = 0; w < W; ++w)
    out_words[static_cast<std::size_t>(w)] = reinterpret_cast<std::uint64_t*>(out.data(static_cast<std::size_t>(w)));
  const std::vector<const std::uint64_t*> from(words.begin(), words.end());
  const kernels::ColumnView value = has_value ? column_view(in, vcol) : kernels::ColumnView{};
  const auto v = static_cast<std::size_t>(W) + 1;
  kernels::TransformKernels<B>::tag_rows(exec, from.data(), W, static_cast<const std::int64_t*>(rows.get()), kept,
                                         first_row, has_value ? &value : nullptr, out_words.data(),
                                         reinterpret_cast<std::int64_t*>(out.data(static_cast<std::size_t>(W))),
                                         has_value ? out.data(v) : nullptr, masked ? out.valid(v) : nullptr);
}

template <class B>
void compute_on(TaskContext& ctx, const kernels::Exec& exec, const GroupTransform& what, const KeyEncoder& enc,
                int row_bits, bool has_value, const std::vector<ElementType>& res_types,
                const std::vector<bool>& res_masks) {
  const BatchView in = input_batch(ctx, 0);
  const std::int64_t n = in.nrows();
  BatchBuilder out(ctx, n, res_types, res_masks);
  if (n == 0) return;
  const int W = enc.width();
  int bits[kernels::kMaxKeyWords];
  kernels::key_bits(enc, bits);
  const std::vector<const std::uint64_t*> words = word_columns(in, W);
  const auto w = static_cast<std::size_t>(W);
  const kernels::SegmentValues values = has_value ? ValueView(in, w + 1) : kernels::SegmentValues{};
  const kernels::SegmentResult result{res_types[1], out.data(1), out.valid(1)};
  kernels::TransformKernels<B>::compute(exec, words.data(), W, bits, reinterpret_cast<const std::int64_t*>(in.data(w)),
                                        row_bits, n, values, segment_op_of(what), result,
                                        reinterpret_cast<std::int64_t*>(out.data(0)));
}

template <class B>
void scatter_on(TaskContext& ctx, const kernels::Exec& exec, const Schema& out_schema, std::int64_t first_row,
                std::int64_t m) {
  const BatchView in = input_batch(ctx, 0);
  const ElementType type = out_schema.type(0);
  BatchBuilder out(ctx, m, out_schema, {type != ElementType::float64});
  const kernels::SegmentResult result{type, out.data(0), out.valid(0)};
  const std::int64_t n = in.nrows();
  const kernels::SegmentValues values = n > 0 ? ValueView(in, 1) : kernels::SegmentValues{type, nullptr, nullptr};
  kernels::TransformKernels<B>::scatter(exec, n > 0 ? reinterpret_cast<const std::int64_t*>(in.data(0)) : nullptr, n,
                                        values, first_row, m, result);
}

}  // namespace

bool group_transform_takes_device_path(const Frame& frame, const GroupTransform& what, const KeyEncoder& enc) {
  const kernels::SegmentOp op = segment_op_of(what);
  const bool by_value = kernels::segment_op_is_sorted(op);
  return takes_device_paths(frame) &&
         (by_value || kernels::segment_op_is_sequential(op) || kernels::segment_op_is_windowed(op)) &&
         enc.cols.size() <= static_cast<std::size_t>(kernels::kMaxKeyColumns) &&
         enc.width() + (by_value ? 2 : 1) <= kernels::kMaxKeyWords;
}

void tag_rows_on_device(TaskContext& ctx, const KeyEncoder& enc, const Schema& tag_schema, bool has_value,
                        std::size_t vcol, std::int64_t first_row) {
  on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    tag_on<typename decltype(tag)::type>(ctx, exec, enc, tag_schema, has_value, vcol, first_row);
  });
}

void transform_rows_on_device(TaskContext& ctx, const GroupTransform& what, const KeyEncoder& enc, int row_bits,
                              bool has_value, const std::vector<ElementType>& res_types,
                              const std::vector<bool>& res_masks) {
  on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    compute_on<typename decltype(tag)::type>(ctx, exec, what, enc, row_bits, has_value, res_types, res_masks);
  });
}

DeviceRouteFn device_route_by_row(std::shared_ptr<const std::vector<std::int64_t>> starts,
                                  std::shared_ptr<const std::vector<std::uint32_t>> ids) {
  return [starts = std::move(starts), ids = std::move(ids)](TaskContext& ctx, const kernels::Exec& exec,
                                                            const BatchView& b, std::uint32_t* bucket) {
    const std::int64_t n = b.nrows();
    const auto nb = static_cast<std::int64_t>(starts->size());
    if (n == 0 || nb == 0) return;
    ScratchBytes s(exec, starts->size() * 8), d(exec, ids->size() * 4);
    slab::copy(s.get(), starts->data(), starts->size() * 8, ctx.execution());
    slab::copy(d.get(), ids->data(), ids->size() * 4, ctx.execution());
    with_planned_backend(ctx.execution(), [&](auto tag) {
      kernels::TransformKernels<typename decltype(tag)::type>::return_buckets(
          exec, reinterpret_cast<const std::int64_t*>(b.data(0)), n, static_cast<const std::int64_t*>(s.get()),
          static_cast<const std::uint32_t*>(d.get()), nb, bucket);
    });
  };
}

void scatter_rows_on_device(TaskContext& ctx, const Schema& out_schema, std::int64_t first_row, std::int64_t m) {
  on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    scatter_on<typename decltype(tag)::type>(ctx, exec, out_schema, first_row, m);
  });
}

}  // namespace slab::frame::detail
