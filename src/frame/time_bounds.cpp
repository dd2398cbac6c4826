// The times' bounds of a timestamp column per partition (time_bounds.hpp).
#include "frame/time_bounds.hpp"

#include <algorithm>
#include <span>

#include "frame/device_paths.hpp"
#include "slab/memory/host_view.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

std::vector<kernels::TimeBounds> detail::time_bounds(const Frame& frame, std::size_t on_col, bool device) {
  std::vector<kernels::TimeBounds> out;
  if (!device) {
    Frame(frame).persist();  // runs the graph (collective)
    for (const Chunk& chunk : frame.partitions()) {
      auto [pin, b] = view_chunk(chunk);
      kernels::TimeBounds tb;
      const auto n = static_cast<std::size_t>(b.nrows());
      const std::int64_t* t = n ? b.column<std::int64_t>(on_col).data() : nullptr;
      const std::uint8_t* valid = n ? b.valid(on_col) : nullptr;
      if (n && !valid) {  // no mask (the usual case): three passes the compiler vectorises
        tb.any = true, tb.first = t[0], tb.last = t[n - 1];
        tb.min = *std::min_element(t, t + n);
        tb.sorted = std::is_sorted(t, t + n);
        out.push_back(tb);
        continue;
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (valid && !valid[i]) {
          tb.nulls = true;
          continue;
        }
        if (!tb.any) tb.any = true, tb.min = tb.first = tb.last = t[i];
        if (t[i] < tb.last) tb.sorted = false;
        tb.min = std::min(tb.min, t[i]), tb.last = t[i];
      }
      out.push_back(tb);
    }
    return out;
  }
  TaskQueue& tasks = frame.engine().tasks();
  std::vector<Chunk> parts;
  for (const Chunk& chunk : frame.partitions())
    parts.push_back(tasks.submit(
        "time-bounds", {chunk},
        [on_col](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0);
          kernels::TimeBounds tb;
          if (in.nrows() > 0)
            on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              tb = kernels::ResampleKernels<typename decltype(tag)::type>::bounds(exec, column_view(in, on_col),
                                                                                  in.nrows());
            });
          const std::int64_t v[6] = {tb.any, tb.min, tb.first, tb.last, tb.sorted, tb.nulls};
          auto dst = ctx.output(sizeof v);
          slab::copy(dst.data(), v, sizeof v, ctx.execution());
        },
        device_task()));
  tasks.persist(std::span<const Chunk>(parts));
  for (const Chunk& p : parts) {
    const Pin pin = p.buffer()->pin();
    const auto v = HostView(pin).as<std::int64_t>();
    out.push_back({v[0] != 0, v[1], v[2], v[3], v[4] != 0, v[5] != 0});
  }
  return out;
}

}  // namespace slab::frame
