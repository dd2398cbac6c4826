// The ranges pass of a KeyEncoder over a frame's partitions. See frame/key_ranges.hpp.
#include "frame/key_ranges.hpp"

#include "frame/device_paths.hpp"
#include "frame/kernels/key_encode.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame::detail {

void fold_key_ranges(const Frame& frame, const KeyEncoder& enc, std::vector<std::uint64_t>& mins,
                     std::vector<std::uint64_t>& maxs, const char* task_name) {
  TaskQueue& tasks = frame.engine().tasks();
  const bool device = takes_device_paths(frame);
  std::vector<Chunk> run;
  for (const auto& p : frame.partitions()) {
    if (!device) {
      run.push_back(tasks.submit(task_name, {p}, [&enc, &mins, &maxs](TaskContext& ctx) {
        enc.update_ranges(input_batch(ctx, 0), mins, maxs);
      }));
      continue;
    }
    run.push_back(tasks.submit(
        task_name, {p},
        [&enc, &mins, &maxs](TaskContext& ctx) {
          const BatchView b = input_batch(ctx, 0);
          on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
            using Keys = kernels::KeyKernels<typename decltype(tag)::type>;
            for (std::size_t k = 0; k < enc.cols.size(); ++k) {
              std::uint64_t mn = ~0ull, mx = 0;  // none: min > max, as KeyEncoder::update_ranges
              if (!enc.card[k] && b.nrows() > 0)
                Keys::value_word_range(exec, {column_view(b, enc.cols[k]), nullptr}, b.nrows(), &mn, &mx);
              enc.fold_range(k, mn, mx, mins, maxs);
            }
          });
        },
        device_task()));
  }
  tasks.persist(run);
}

}  // namespace slab::frame::detail
