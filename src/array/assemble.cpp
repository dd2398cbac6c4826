// Arrays assembled by flat (C-order) index from pieces of others: local tasks where nothing changes rank,
// otherwise one collective alltoallv task per round of result chunks. On a device context the runs are copied by
// LayoutKernels::copy_2d (batched where they follow at constant strides) and exchanged in kernel scratch.
#include "array/assemble.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <utility>

#include "array/layout_kernels.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::detail {
namespace {

// A source as the block maths sees it (no chunks: any rank can reason about any other rank's pieces).
struct Src {
  Layout layout;
  std::int64_t offset = 0;
};

struct Range {
  std::int64_t lo = 0, hi = 0;
};

// The flat range of a result chunk or block (a row range with every column).
Range flat_of(const ChunkExtent& e, std::int64_t cols) { return {e.row0 * cols, (e.row0 + e.rows) * cols}; }

// A replicated source is read only by the rank that needs it (every rank holds all of it).
bool sends(const Src& s, int from, int to) { return s.layout.split != Split::none || from == to; }

// The chunks [first, last) of rank `from` in source `s` that may hold flat indices [r.lo, r.hi) of the result.
std::pair<std::int64_t, std::int64_t> chunk_span(const Src& s, int from, Range r) {
  const Layout& l = s.layout;
  const std::int64_t n = l.num_chunks(from);
  const std::int64_t a = r.lo - s.offset, b = r.hi - s.offset;  // in the source's own flat indices
  if (n == 0 || b <= 0 || a >= l.size() || a >= b) return {0, 0};
  if (l.split == Split::cols) return {0, n};  // every column chunk holds every row: the runs filter
  const std::int64_t first_row = std::max<std::int64_t>(a, 0) / l.cols;
  const std::int64_t last_row = (std::min(b, l.size()) - 1) / l.cols;
  const ChunkExtent blk = l.block_extent(from);
  const std::int64_t f = std::max(first_row, blk.row0), t = std::min(last_row, blk.row0 + blk.rows - 1);
  if (f > t) return {0, 0};
  return {(f - blk.row0) / l.chunk, (t - blk.row0) / l.chunk + 1};
}

// f(result_flat, length, element offset in the chunk) for each contiguous run of chunk `e` of `s` in [r.lo, r.hi).
template <class F>
void for_each_run(const Src& s, const ChunkExtent& e, Range r, F&& f) {
  const std::int64_t C = s.layout.cols;
  auto clip = [&](std::int64_t begin, std::int64_t len, std::int64_t src) {
    const std::int64_t x = std::max(begin, r.lo), y = std::min(begin + len, r.hi);
    if (x < y) f(x, y - x, src + (x - begin));
  };
  if (e.cols == C) {  // whole rows: one run
    clip(s.offset + e.row0 * C, e.size(), 0);
    return;
  }
  const std::int64_t a = r.lo - s.offset, b = r.hi - s.offset;
  const std::int64_t r0 = std::max(e.row0, a <= 0 ? 0 : a / C);
  const std::int64_t r1 = std::min(e.row0 + e.rows, b <= 0 ? 0 : (b - 1) / C + 1);
  for (std::int64_t i = r0; i < r1; ++i) clip(s.offset + i * C + e.col0, e.cols, (i - e.row0) * e.cols);
}

// Whether every rank's result block is made of what that rank holds of the sources.
bool all_local(const std::vector<Src>& srcs, const Layout& target) {
  for (int t = 0; t < target.nranks; ++t) {
    const Range want = flat_of(target.block_extent(t), target.cols);
    for (const Src& s : srcs) {
      const Layout& l = s.layout;
      if (l.split == Split::none || l.size() == 0) continue;
      const Range need{std::max(want.lo, s.offset), std::min(want.hi, s.offset + l.size())};
      if (need.lo >= need.hi) continue;
      const ChunkExtent blk = l.block_extent(t);
      if (l.split == Split::cols && blk.cols != l.cols) return false;
      const Range held{s.offset + blk.row0 * l.cols, s.offset + (blk.row0 + blk.rows) * l.cols};
      if (need.lo < held.lo || need.hi > held.hi) return false;
    }
  }
  return true;
}

// (source, chunk) pairs, sorted: a task's inputs and where each one is among them.
using Slots = std::vector<std::pair<std::size_t, std::int64_t>>;
std::size_t slot_of(const Slots& slots, std::size_t s, std::int64_t i) {
  return static_cast<std::size_t>(std::lower_bound(slots.begin(), slots.end(), std::make_pair(s, i)) - slots.begin());
}

/// Contiguous runs copied on the device: runs of one length that follow at constant source and destination
/// strides (a column chunk's rows) become one LayoutKernels::copy_2d, the others one each. flush() before the
/// copies are needed.
template <class M, class LayoutK>
class RunCopier {
 public:
  RunCopier(const kernels::Exec& exec, LayoutK layout) : exec_(exec), layout_(layout) {}
  void add(const M* src, M* dst, std::int64_t len) {
    if (len <= 0) return;
    if (n_ > 0 && len == len_) {
      const std::int64_t ds = src - last_src_, dd = dst - last_dst_;
      if (n_ == 1 && ds >= len && dd >= len) sld_ = ds, dld_ = dd;
      if ((n_ == 1 && ds >= len && dd >= len) || (n_ > 1 && ds == sld_ && dd == dld_)) {
        ++n_, last_src_ = src, last_dst_ = dst;
        return;
      }
    }
    flush();
    src0_ = last_src_ = src, dst0_ = last_dst_ = dst, len_ = len, n_ = 1, sld_ = dld_ = len;
  }
  void flush() {
    if (n_ > 0) layout_.copy_2d(exec_, src0_, sld_, n_, len_, dst0_, dld_);
    n_ = 0;
  }

 private:
  kernels::Exec exec_;
  LayoutK layout_;
  const M *src0_ = nullptr, *last_src_ = nullptr;
  M *dst0_ = nullptr, *last_dst_ = nullptr;
  std::int64_t len_ = 0, n_ = 0, sld_ = 0, dld_ = 0;
};

/// A round's exchange on the device kernels: the runs this rank sends packed into a send buffer of kernel scratch
/// in the host's order (targets, sources, chunks, runs), exchanged (device memory on a GPU: NCCL, or staged where
/// ranks share one), and unpacked into this rank's chunk. The receive counts follow from the layouts, as the
/// host's unpacking walks them.
template <class T, class LayoutK>
void exchange_on_device(TaskContext& ctx, const kernels::Exec& exec, LayoutK layout, const std::vector<Src>& srcs,
                        const Slots& slots, const std::vector<std::pair<int, Range>>& targets, int me, int p) {
  using M = MoveAs<T>;
  const auto it = std::find_if(targets.begin(), targets.end(), [me](const auto& t) { return t.first == me; });
  std::vector<std::size_t> counts(static_cast<std::size_t>(p), 0), rcounts(static_cast<std::size_t>(p), 0);
  std::size_t total = 0, rtotal = 0;
  for (const auto& target : targets)
    for (const Src& s : srcs) {
      const int to = target.first;  // a plain variable: clang 14 cannot capture a structured binding
      const Range r = target.second;
      if (!sends(s, me, to)) continue;
      const auto [i0, i1] = chunk_span(s, me, r);
      for (std::int64_t i = i0; i < i1; ++i)
        for_each_run(s, s.layout.chunk_extent(me, i), r, [&](std::int64_t, std::int64_t len, std::int64_t) {
          counts[static_cast<std::size_t>(to)] += static_cast<std::size_t>(len);
        });
    }
  if (it != targets.end())
    for (int from = 0; from < p; ++from)
      for (const Src& s : srcs) {
        if (!sends(s, from, me)) continue;
        const auto [i0, i1] = chunk_span(s, from, it->second);
        for (std::int64_t i = i0; i < i1; ++i)
          for_each_run(s, s.layout.chunk_extent(from, i), it->second,
                       [&](std::int64_t, std::int64_t len, std::int64_t) {
                         rcounts[static_cast<std::size_t>(from)] += static_cast<std::size_t>(len);
                       });
      }
  for (int r = 0; r < p; ++r)
    total += counts[static_cast<std::size_t>(r)], rtotal += rcounts[static_cast<std::size_t>(r)];
  std::optional<ScratchBytes> send, recv;
  ctx.comm().run_collectively([&] {  // a failed allocation is every rank's error, never a hang in the exchange
    send.emplace(exec, total * sizeof(T));
    recv.emplace(exec, rtotal * sizeof(T));
    M* to_ptr = static_cast<M*>(send->get());
    RunCopier<M, LayoutK> copier(exec, layout);
    for (const auto& [to, r] : targets)
      for (std::size_t s = 0; s < srcs.size(); ++s) {
        if (!sends(srcs[s], me, to)) continue;
        const auto [i0, i1] = chunk_span(srcs[s], me, r);
        for (std::int64_t i = i0; i < i1; ++i) {
          const M* x = move_ptr(ctx.input_as<T>(slot_of(slots, s, i)).data());
          for_each_run(srcs[s], srcs[s].layout.chunk_extent(me, i), r,
                       [&](std::int64_t, std::int64_t len, std::int64_t src) {
                         copier.add(x + src, to_ptr, len);
                         to_ptr += len;
                       });
        }
      }
    copier.flush();
    ctx.execution().synchronize();
  });
  ctx.comm().alltoallv(std::span<const T>(static_cast<const T*>(send->get()), total),
                       std::span<const std::size_t>(counts), std::span<T>(static_cast<T*>(recv->get()), rtotal),
                       std::span<const std::size_t>(rcounts));
  send.reset();
  if (it == targets.end()) return;  // this rank has no chunk in this round
  const Range r = it->second;
  M* o = move_ptr(ctx.output_as<T>(static_cast<std::size_t>(r.hi - r.lo)).data());
  const M* from_ptr = static_cast<const M*>(recv->get());
  RunCopier<M, LayoutK> copier(exec, layout);
  for (int from = 0; from < p; ++from)
    for (const Src& s : srcs) {
      if (!sends(s, from, me)) continue;
      const auto [i0, i1] = chunk_span(s, from, r);
      for (std::int64_t i = i0; i < i1; ++i)
        for_each_run(s, s.layout.chunk_extent(from, i), r, [&](std::int64_t dst, std::int64_t len, std::int64_t) {
          copier.add(from_ptr, o + (dst - r.lo), len);
          from_ptr += len;
        });
    }
  copier.flush();
  ctx.execution().synchronize();  // the receive buffer goes with this scope
}

}  // namespace

std::int64_t chunk_elements(const Layout& l) noexcept {
  const std::int64_t other = l.split == Split::cols ? l.rows : l.cols;
  return std::max<std::int64_t>(1, l.chunk * other);
}

template <class T>
Array<T> as_2d(const Array<T>& a) {
  Layout l = a.layout();
  if (l.ndim == 2) return a;
  l.ndim = 2;
  if (a.is_expression()) return Array<T>(a.engine(), std::move(l), a.expr());
  return Array<T>(a.engine(), std::move(l), a.local_chunks());
}

template <class T>
Array<T> assemble_flat(Engine& engine, const std::vector<FlatSource<T>>& sources, const Layout& target,
                       const char* name) {
  TaskQueue& q = engine.tasks();
  const bool device = has_device_backend(q.memory().execution());
  if (!device) note_host_fallback(engine, name);  // packs and unpacks on the host
  const int me = q.comm().rank();
  const int p = target.nranks;
  std::vector<Src> srcs;
  std::vector<const std::vector<Chunk>*> chunks;
  for (const auto& s : sources) {
    srcs.push_back({s.array.layout(), s.offset});
    chunks.push_back(&s.array.local_chunks());
  }
  // The source chunks this rank reads for the result ranges of `targets` (rank, range) it sends to.
  auto slots_for = [&](const std::vector<std::pair<int, Range>>& targets) {
    Slots slots;
    for (const auto& [to, r] : targets)
      for (std::size_t s = 0; s < srcs.size(); ++s) {
        if (!sends(srcs[s], me, to)) continue;
        const auto [i0, i1] = chunk_span(srcs[s], me, r);
        for (std::int64_t i = i0; i < i1; ++i) slots.emplace_back(s, i);
      }
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    return slots;
  };
  auto inputs_of = [&](const Slots& slots) {
    std::vector<Chunk> in;
    for (const auto& [s, i] : slots) in.push_back((*chunks[s])[static_cast<std::size_t>(i)]);
    return in;
  };

  std::vector<Chunk> out;
  const std::int64_t mine = target.num_chunks(me);
  if (all_local(srcs, target)) {
    for (std::int64_t j = 0; j < mine; ++j) {
      const ChunkExtent e = target.chunk_extent(me, j);
      const Range r = flat_of(e, target.cols);
      Slots slots = slots_for({{me, r}});
      std::vector<Chunk> in = inputs_of(slots);
      out.push_back(q.submit(
          name, std::move(in),
          [srcs, slots, r, me, device](TaskContext& ctx) {
            T* o = ctx.output_as<T>(static_cast<std::size_t>(r.hi - r.lo)).data();
            // copy(from, to, len) for each run of each input chunk into this chunk.
            auto each_run = [&](auto copy) {
              for (std::size_t k = 0; k < slots.size(); ++k) {
                const auto [s, i] = slots[k];
                const T* x = ctx.input_as<T>(k).data();
                for_each_run(srcs[s], srcs[s].layout.chunk_extent(me, i), r,
                             [&](std::int64_t dst, std::int64_t len, std::int64_t src) {
                               copy(x + src, o + (dst - r.lo), len);
                             });
              }
            };
            if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                  RunCopier<MoveAs<T>, decltype(layout)> copier(exec, layout);
                  each_run(
                      [&](const T* from, T* to, std::int64_t len) { copier.add(move_ptr(from), move_ptr(to), len); });
                  copier.flush();
                }))
              return;
            each_run([](const T* from, T* to, std::int64_t len) {
              std::memcpy(to, from, static_cast<std::size_t>(len) * sizeof(T));
            });
          },
          device ? device_task() : TaskOptions{}));
    }
    return Array<T>(engine, target, std::move(out));
  }

  std::int64_t rounds = 0;
  for (int r = 0; r < p; ++r) rounds = std::max(rounds, target.num_chunks(r));
  for (std::int64_t j = 0; j < rounds; ++j) {
    std::vector<std::pair<int, Range>> targets;  // every rank's chunk j
    for (int to = 0; to < p; ++to)
      if (j < target.num_chunks(to)) targets.emplace_back(to, flat_of(target.chunk_extent(to, j), target.cols));
    Slots slots = slots_for(targets);
    std::vector<Chunk> in = inputs_of(slots);
    Chunk c = q.submit(
        name, std::move(in),
        [srcs, slots, targets, me, p, device](TaskContext& ctx) {
          if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                exchange_on_device<T>(ctx, exec, layout, srcs, slots, targets, me, p);
              }))
            return;
          std::vector<T> send;
          std::vector<std::size_t> counts(static_cast<std::size_t>(p), 0);
          for (const auto& target : targets)
            for (std::size_t s = 0; s < srcs.size(); ++s) {
              const auto& [to_rank, r] = target;
              const auto to = to_rank;  // a plain variable: clang 14 cannot capture a structured binding
              if (!sends(srcs[s], me, to)) continue;
              const auto [i0, i1] = chunk_span(srcs[s], me, r);
              for (std::int64_t i = i0; i < i1; ++i) {
                const T* x = ctx.input_as<T>(slot_of(slots, s, i)).data();
                for_each_run(srcs[s], srcs[s].layout.chunk_extent(me, i), r,
                             [&](std::int64_t, std::int64_t len, std::int64_t src) {
                               send.insert(send.end(), x + src, x + src + len);
                               counts[static_cast<std::size_t>(to)] += static_cast<std::size_t>(len);
                             });
              }
            }
          std::vector<T> recv;
          std::vector<std::size_t> recv_counts;
          ctx.comm().alltoallv(std::span<const T>(send), std::span<const std::size_t>(counts), recv, recv_counts);
          const auto it = std::find_if(targets.begin(), targets.end(), [me](const auto& t) { return t.first == me; });
          if (it == targets.end()) return;  // this rank has no chunk in this round
          const Range r = it->second;
          T* o = ctx.output_as<T>(static_cast<std::size_t>(r.hi - r.lo)).data();
          const T* from_ptr = recv.data();
          for (int from = 0; from < p; ++from)
            for (std::size_t s = 0; s < srcs.size(); ++s) {
              if (!sends(srcs[s], from, me)) continue;
              const auto [i0, i1] = chunk_span(srcs[s], from, r);
              for (std::int64_t i = i0; i < i1; ++i)
                for_each_run(srcs[s], srcs[s].layout.chunk_extent(from, i), r,
                             [&](std::int64_t dst, std::int64_t len, std::int64_t) {
                               std::memcpy(o + (dst - r.lo), from_ptr, static_cast<std::size_t>(len) * sizeof(T));
                               from_ptr += len;
                             });
            }
        },
        device ? device_task(TraceKind::comm, true) : TaskOptions{TraceKind::comm, true});
    if (j < mine) out.push_back(std::move(c));
  }
  return Array<T>(engine, target, std::move(out));
}

#define SLAB_INSTANTIATE(T)                                                                                \
  template Array<T> assemble_flat(Engine&, const std::vector<FlatSource<T>>&, const Layout&, const char*); \
  template Array<T> as_2d(const Array<T>&);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab::detail
