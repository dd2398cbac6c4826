// Distributed merge: broadcast (allgatherv of the build side) or hash shuffle of both sides, then a
// build/probe hash join per probe batch. Keys go through the same order-preserving words as groupby.
#include "slab/frame/merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "frame/device_paths.hpp"
#include "frame/hash_table.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/merge.hpp"
#include "frame/key_ranges.hpp"
#include "frame/key_words.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "memory/kernel_scratch.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/host_view.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab::frame {

namespace {

using detail::GroupIndex;
using detail::KeyEncoder;

/// Bytes rounded up to 8 (batches are concatenated in exchange buffers and viewed in place).
std::size_t pad8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

/// Output column source: side (0 left, 1 right) and column; key columns coalesce both sides.
struct OutSpec {
  int side = 0;
  std::size_t col = 0;
  int key = -1;  ///< key index when a key column
};

/// The build side, hashed: CSR of row indices per key group.
struct BuildTable {
  std::vector<std::byte> bytes;  // the build batch (8-aligned storage)
  BatchView batch;
  /// The device path's copy of the build batch in the device tier, made once per merge (accounted, spillable).
  BufferPtr on_device;
  /// A broadcast join's build side sorted once on the device for every probe task (prepare_build_side), in the
  /// device tier; `prepared_layout` keeps its sizes and scalars (its pointers are re-derived from each pin).
  BufferPtr prepared;
  kernels::PreparedBuild prepared_layout;
  std::unique_ptr<GroupIndex> index;
  /// One int64/timestamp key over a dense range: group of key lo + k is direct[k] (-1 none); no index.
  std::int64_t lo = 0;
  std::vector<std::int32_t> direct;
  bool identity = false;  ///< every row valid with its own key: group g is row g (no CSR lookups)
  std::vector<std::int64_t> offsets, rows;
  std::vector<std::uint8_t> matched;
};

struct JoinPlan {
  KeyEncoder enc[2];
  std::vector<OutSpec> out;
  std::vector<ElementType> types;
  int probe = 0, build = 1;
  bool keep_probe = false, keep_build = false;
  std::uint64_t direct = 0;
};

void gather_column(const BatchView& src, std::size_t c, const std::int64_t* idx, std::size_t n, BatchBuilder& bb,
                   std::size_t oc, std::size_t begin, const std::vector<std::int64_t>* remap) {
  const ElementType t = src.type(c);
  const std::size_t es = element_size(t);
  const std::byte* s = src.data(c);
  std::byte* d = bb.data(oc) + begin * es;
  const std::uint8_t* sv = src.valid(c);
  std::uint8_t* dv = bb.valid(oc);
  if (dv) dv += begin;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t r = idx[i];
    const bool ok = r >= 0 && (!sv || sv[r]);
    if (dv) dv[i] = ok ? 1 : 0;
    if (es == 8) {
      std::uint64_t v = 0;
      if (r >= 0) std::memcpy(&v, s + r * 8, 8);
      if (!ok && t == ElementType::float64) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::memcpy(&v, &nan, 8);
      }
      std::memcpy(d + i * 8, &v, 8);
    } else if (es == 4) {
      std::int32_t v = r >= 0 ? reinterpret_cast<const std::int32_t*>(s)[r] : -1;
      if (v >= 0 && remap && !remap->empty()) v = static_cast<std::int32_t>((*remap)[v]);
      if (!ok) v = -1;
      reinterpret_cast<std::int32_t*>(d)[i] = v;
    } else {
      d[i] = r >= 0 ? s[r] : std::byte{0};
    }
  }
}

/// Write the joined rows (pairs pi/bi, -1 = missing) of a probe batch and the build table.
template <class Out>
void write_output(const JoinPlan& plan, const BatchView& probe, const BuildTable& bt,
                  const std::vector<std::int64_t>& pi, const std::vector<std::int64_t>& bi, Out& out) {
  const std::size_t n = pi.size();
  bool probe_missing = false, build_missing = false;
  for (auto r : pi) probe_missing |= r < 0;
  for (auto r : bi) build_missing |= r < 0;
  std::vector<bool> masks;
  for (const auto& o : plan.out) {
    if (o.key >= 0) {
      const auto& pe = plan.enc[plan.probe];
      const auto& be = plan.enc[plan.build];
      const bool pm = probe.ncols() && probe.valid(pe.cols[o.key]);
      const bool bm = bt.batch.ncols() && bt.batch.valid(be.cols[o.key]);
      masks.push_back(pm || bm || (probe_missing && build_missing));
    } else {
      const bool from_probe = o.side == plan.probe;
      const BatchView& src = from_probe ? probe : bt.batch;
      masks.push_back((src.ncols() && src.valid(o.col)) || (from_probe ? probe_missing : build_missing));
    }
  }
  BatchBuilder bb(out, static_cast<std::int64_t>(n), plan.types, masks);
  for (std::size_t oc = 0; oc < plan.out.size(); ++oc) {
    const OutSpec& o = plan.out[oc];
    if (o.key >= 0) {
      const auto& pe = plan.enc[plan.probe];
      const auto& be = plan.enc[plan.build];
      // Runs of rows from the probe side, the rest from the build side.
      if (probe.ncols()) gather_column(probe, pe.cols[o.key], pi.data(), n, bb, oc, 0, &pe.remap[o.key]);
      if (probe_missing && bt.batch.ncols()) {
        std::vector<std::int64_t> bidx(n, -1);
        for (std::size_t i = 0; i < n; ++i)
          if (pi[i] < 0) bidx[i] = bi[i];
        // overwrite the rows the probe side lacks
        std::vector<std::byte> tmp;
        std::vector<ElementType> t1{plan.types[oc]};
        BatchBuilder one(tmp, static_cast<std::int64_t>(n), t1, {true});
        gather_column(bt.batch, be.cols[o.key], bidx.data(), n, one, 0, 0, &be.remap[o.key]);
        const std::size_t es = element_size(plan.types[oc]);
        for (std::size_t i = 0; i < n; ++i)
          if (pi[i] < 0) {
            std::memcpy(bb.data(oc) + i * es, one.data(0) + i * es, es);
            if (bb.valid(oc)) bb.valid(oc)[i] = one.valid(0)[i];
          }
      }
    } else if (o.side == plan.probe) {
      gather_column(probe, o.col, pi.data(), n, bb, oc, 0, nullptr);
    } else {
      gather_column(bt.batch, o.col, bi.data(), n, bb, oc, 0, nullptr);
    }
  }
}

/// Encode keys of `b` with `enc`; gids in the build index (-1 none / null), into `gid`. The scratch vectors
/// are per thread and keep their capacity, so probing partition after partition does not fault in fresh pages.
void lookup(const KeyEncoder& enc, const GroupIndex& index, const BatchView& b, std::vector<std::int32_t>& gid) {
  const auto n = static_cast<std::size_t>(b.nrows());
  gid.assign(n, -1);
  if (n == 0) return;
  thread_local std::vector<std::vector<std::uint64_t>> words;
  thread_local std::vector<std::uint8_t> keep;
  const std::int64_t kept = enc.encode(b, words, keep);
  std::vector<const std::uint64_t*> wp;
  for (auto& w : words) wp.push_back(w.data());
  index.lookup(wp.data(), n, gid.data());
  if (kept != static_cast<std::int64_t>(n))
    for (std::size_t i = 0; i < n; ++i)
      if (!keep[i]) gid[i] = -1;
}

/// One int64/timestamp key: eligible for the direct array (build_table).
bool direct_key(const JoinPlan& plan) {
  const KeyEncoder& e = plan.enc[plan.build];
  return e.cols.size() == 1 && (e.types[0] == ElementType::int64 || e.types[0] == ElementType::timestamp);
}

/// Whether a dense key range of `span` values over n build rows takes the direct array (build_table's condition,
/// and the device path's, direct_range).
bool direct_array_fits(unsigned __int128 span, std::uint64_t n) {
  return span <= std::max<std::uint64_t>(4 * n, 1u << 16) && span <= (1u << 27);
}

/// Hash bt.batch (set by the caller) by its keys.
void build_table(const JoinPlan& plan, BuildTable& bt) {
  const KeyEncoder& enc = plan.enc[plan.build];
  const auto n = static_cast<std::size_t>(bt.batch.nrows());
  std::vector<std::int32_t> gid(n, -1);
  std::size_t G = 0;
  if (direct_key(plan) && n) {
    // A dense single integer key (W4's case): an array lookup instead of hashing, on both sides.
    const std::size_t c = enc.cols[0];
    const std::int64_t* v = bt.batch.column<std::int64_t>(c).data();
    const std::uint8_t* valid = bt.batch.valid(c);
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < n; ++i)
      if (!valid || valid[i]) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
    const auto span = static_cast<unsigned __int128>(static_cast<__int128>(hi) - lo + 1);
    if (lo <= hi && direct_array_fits(span, n)) {
      bt.lo = lo;
      bt.direct.assign(static_cast<std::size_t>(span), -1);
      for (std::size_t i = 0; i < n; ++i)
        if (!valid || valid[i]) {
          std::int32_t& g = bt.direct[static_cast<std::size_t>(v[i] - lo)];
          if (g < 0) g = static_cast<std::int32_t>(G++);
          gid[i] = g;
        }
    }
  }
  if (bt.direct.empty())
    bt.index = std::make_unique<GroupIndex>(enc.width(), plan.direct, std::max<std::size_t>(n, 16));
  if (n && bt.direct.empty()) {
    std::vector<std::vector<std::uint64_t>> words;
    std::vector<std::uint8_t> keep;
    enc.encode(bt.batch, words, keep);
    // Only kept rows get groups: compact them.
    std::vector<std::size_t> kept_rows;
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i]) kept_rows.push_back(i);
    if (kept_rows.size() == n) {
      std::vector<const std::uint64_t*> wp;
      for (auto& w : words) wp.push_back(w.data());
      bt.index->assign(wp.data(), n, gid.data());
    } else {
      std::vector<std::vector<std::uint64_t>> kw(words.size(), std::vector<std::uint64_t>(kept_rows.size()));
      for (std::size_t w = 0; w < words.size(); ++w)
        for (std::size_t j = 0; j < kept_rows.size(); ++j) kw[w][j] = words[w][kept_rows[j]];
      std::vector<const std::uint64_t*> wp;
      for (auto& w : kw) wp.push_back(w.data());
      std::vector<std::int32_t> g2(kept_rows.size());
      bt.index->assign(wp.data(), kept_rows.size(), g2.data());
      for (std::size_t j = 0; j < kept_rows.size(); ++j) gid[kept_rows[j]] = g2[j];
    }
  }
  if (bt.index) G = bt.index->size();
  bt.identity = G == n;  // groups are numbered by first appearance, so group g is row g
  bt.offsets.assign(G + 1, 0);
  for (auto g : gid)
    if (g >= 0) ++bt.offsets[g + 1];
  for (std::size_t g = 0; g < G; ++g) bt.offsets[g + 1] += bt.offsets[g];
  bt.rows.resize(bt.offsets[G]);
  std::vector<std::int64_t> pos(bt.offsets.begin(), bt.offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (gid[i] >= 0) bt.rows[pos[gid[i]]++] = static_cast<std::int64_t>(i);
  bt.matched.assign(n, 0);
}

/// Probe: the (probe row, build row) pairs of batch `b`.
void probe_pairs(const JoinPlan& plan, const BuildTable& bt, const BatchView& b, std::vector<std::int64_t>& pi,
                 std::vector<std::int64_t>& bi, std::vector<std::uint8_t>* matched) {
  thread_local std::vector<std::int32_t> gid;
  if (!bt.direct.empty()) {
    const auto n = static_cast<std::size_t>(b.nrows());
    gid.resize(n);
    if (n) {
      const std::size_t c = plan.enc[plan.probe].cols[0];
      const std::int64_t* v = b.column<std::int64_t>(c).data();
      const std::uint8_t* valid = b.valid(c);
      const auto span = static_cast<std::uint64_t>(bt.direct.size());
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(bt.lo);
        gid[i] = k < span && (!valid || valid[i]) ? bt.direct[k] : -1;
      }
    }
  } else {
    lookup(plan.enc[plan.probe], *bt.index, b, gid);
  }
  const std::int64_t* off = bt.offsets.data();
  const std::int64_t* rows = bt.rows.data();
  if (bt.identity) {  // unique build keys: one random access per probe row
    pi.resize(gid.size());
    bi.resize(gid.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < gid.size(); ++i) {
      const std::int32_t g = gid[i];
      if (g < 0 && !plan.keep_probe) continue;
      pi[at] = static_cast<std::int64_t>(i);
      bi[at++] = g;
      if (matched && g >= 0) (*matched)[static_cast<std::size_t>(g)] = 1;
    }
    pi.resize(at);
    bi.resize(at);
    return;
  }
  std::size_t total = 0;
  for (auto g : gid) total += g >= 0 ? static_cast<std::size_t>(off[g + 1] - off[g]) : (plan.keep_probe ? 1 : 0);
  pi.resize(total);
  bi.resize(total);
  std::size_t at = 0;
  for (std::size_t i = 0; i < gid.size(); ++i) {
    const std::int32_t g = gid[i];
    if (g < 0) {
      if (plan.keep_probe) {
        pi[at] = static_cast<std::int64_t>(i);
        bi[at++] = -1;
      }
      continue;
    }
    for (std::int64_t k = off[g]; k < off[g + 1]; ++k) {
      pi[at] = static_cast<std::int64_t>(i);
      bi[at++] = rows[k];
      if (matched) (*matched)[rows[k]] = 1;
    }
  }
}

// (join_remaps and direct_keys are unused in a build without device backends, where no device path is
// instantiated.)
/// Side s's string key remaps (one per key column, nullptr for the identity) in the backend's memory, held by `held`.
[[maybe_unused]] std::vector<const std::int64_t*> join_remaps(
    const kernels::Exec& exec, const ExecutionContext& context, const JoinPlan& plan, int s,
    std::vector<std::unique_ptr<slab::detail::ScratchBytes>>& held) {
  std::vector<const std::int64_t*> out;
  for (std::size_t k = 0; k < plan.enc[s].cols.size(); ++k) {
    const std::vector<std::int64_t>& r = plan.enc[s].remap[k];
    if (r.empty()) {
      out.push_back(nullptr);
      continue;
    }
    held.push_back(std::make_unique<slab::detail::ScratchBytes>(exec, r.size() * sizeof(std::int64_t)));
    slab::copy(held.back()->get(), r.data(), r.size() * sizeof(std::int64_t), context);
    out.push_back(static_cast<const std::int64_t*>(held.back()->get()));
  }
  return out;
}

/// Side s's key words and keep flags (KeyKernels::encode with its remaps) in scratch held by `held`; `words`
/// receives the word columns that the returned keys point to.
template <class B>
kernels::JoinKeys encode_join_side(const kernels::Exec& exec, const JoinPlan& plan, int s, const BatchView& b,
                                   const std::vector<const std::int64_t*>& remaps,
                                   std::vector<std::unique_ptr<slab::detail::ScratchBytes>>& held,
                                   std::vector<std::uint64_t*>& words) {
  const int W = plan.enc[0].width();
  const std::int64_t n = b.nrows();
  held.push_back(std::make_unique<slab::detail::ScratchBytes>(
      exec, static_cast<std::size_t>(W) * static_cast<std::size_t>(n) * 8 + static_cast<std::size_t>(n)));
  auto* base = static_cast<std::uint64_t*>(held.back()->get());
  words.clear();
  for (int w = 0; w < W; ++w) words.push_back(base + w * n);
  auto* keep = reinterpret_cast<std::uint8_t*>(base + W * n);
  if (n > 0) {
    std::vector<kernels::KeyColumn> keys;
    for (std::size_t k = 0; k < plan.enc[s].cols.size(); ++k)
      keys.push_back({detail::column_view(b, plan.enc[s].cols[k]), remaps[k]});
    kernels::KeyKernels<B>::encode(exec, keys.data(), kernels::layout_of(plan.enc[s]), n, words.data(), keep);
  }
  return {words.data(), keep, n};
}

/// build_table's direct array on the device, on the same condition: the build key's first value and the number of
/// slots when its range is dense enough, else span 0 (key words).
template <class B>
std::pair<std::int64_t, std::uint64_t> direct_range(const kernels::Exec& exec, const JoinPlan& plan,
                                                    const BatchView& build) {
  const std::int64_t nb = build.nrows();
  if (!direct_key(plan) || nb <= 0) return {0, 0};
  std::uint64_t wmin = 0, wmax = 0;
  kernels::KeyKernels<B>::value_word_range(exec, {detail::column_view(build, plan.enc[plan.build].cols[0]), nullptr},
                                           nb, &wmin, &wmax);
  if (wmin > wmax) return {0, 0};
  const std::int64_t lo = kernels::word_int(wmin), hi = kernels::word_int(wmax);
  const auto span = static_cast<unsigned __int128>(static_cast<__int128>(hi) - lo + 1);
  const bool direct = direct_array_fits(span, static_cast<std::uint64_t>(nb));
  return {lo, direct ? static_cast<std::uint64_t>(span) : 0};
}

/// Side s's key column as the direct array reads it.
[[maybe_unused]] kernels::JoinDirectKeys direct_keys(const JoinPlan& plan, int s, const BatchView& b) {
  const std::size_t c = plan.enc[s].cols[0];
  const std::int64_t n = b.nrows();
  return {n ? reinterpret_cast<const std::int64_t*>(b.data(c)) : nullptr, n ? b.valid(c) : nullptr, n};
}

/// The build side of a broadcast join sorted once (JoinKernels::prepare / prepare_direct) into `memory` (of
/// prepared_bytes for the returned layout's sizes, allocated by `allocate(bytes)`); the returned layout's pointers
/// are those of that allocation's pin at the time, its scalars what every probe needs.
template <class B, class Allocate>
kernels::PreparedBuild prepare_build_side(const kernels::Exec& exec, const ExecutionContext& context,
                                          const JoinPlan& plan, const BatchView& build, Allocate&& allocate) {
  using Join = kernels::JoinKernels<B>;
  const std::int64_t nb = build.nrows();
  const auto [lo, span] = direct_range<B>(exec, plan, build);
  const int W = span ? 0 : plan.enc[0].width();
  void* memory = allocate(Join::prepared_bytes(nb, W, span));
  kernels::PreparedBuild p = Join::prepared_at(memory, nb, W, span);
  if (span) {
    Join::prepare_direct(exec, direct_keys(plan, plan.build, build), lo, p);
    return p;
  }
  std::vector<std::unique_ptr<slab::detail::ScratchBytes>> held;
  std::vector<std::uint64_t*> words;
  const auto remaps = join_remaps(exec, context, plan, plan.build, held);
  const kernels::JoinKeys keys = encode_join_side<B>(exec, plan, plan.build, build, remaps, held, words);
  int bits[kernels::kMaxKeyWords];
  kernels::key_bits(plan.enc[plan.build], bits);
  Join::prepare(exec, keys, bits, p);
  return p;
}

/// `layout` (prepare_build_side's) with its arrays at `memory`, where its buffer is pinned now.
template <class B>
kernels::PreparedBuild prepared_at(const kernels::PreparedBuild& layout, void* memory) {
  kernels::PreparedBuild p = kernels::JoinKernels<B>::prepared_at(memory, layout.n, layout.width, layout.span);
  p.lo = layout.lo;
  p.m = layout.m;
  p.groups = layout.groups;
  return p;
}

/**
 * The device path of one join (frame/kernels/merge.hpp): both sides' keys encoded (or, for one dense int64 key,
 * the direct array over the build keys' range, as build_table decides), the pairs counted and filled in the
 * host's output order, then one gather per output column with write_output's masks and values. `prepared`: the
 * build side already sorted (a broadcast join's, prepare_build_side), or nullptr.
 */
template <class B>
void join_on_device(TaskContext& ctx, const kernels::Exec& exec, const JoinPlan& plan, const BatchView& probe,
                    const BatchView& build, const kernels::PreparedBuild* prepared = nullptr) {
  using Join = kernels::JoinKernels<B>;
  const ExecutionContext& context = ctx.execution();
  const BatchView* side[2] = {nullptr, nullptr};
  side[plan.probe] = &probe;
  side[plan.build] = &build;
  const std::int64_t np = probe.nrows(), nb = build.nrows();
  const kernels::JoinSides kind{plan.keep_probe, plan.keep_build};
  slab::detail::ScratchBytes workspace(exec, Join::workspace_bytes(np, nb));
  // String keys' code remaps into the shared dictionary, in the backend's memory.
  std::vector<std::unique_ptr<slab::detail::ScratchBytes>> held;
  std::vector<const std::int64_t*> remaps[2];
  for (int s = 0; s < 2; ++s) remaps[s] = join_remaps(exec, context, plan, s, held);
  auto column_of = [&](int s, std::size_t c, ElementType type) {
    const BatchView& b = *side[s];
    return b.ncols() ? detail::column_view(b, c) : kernels::ColumnView{type, nullptr, nullptr};
  };

  std::int64_t pairs = 0;
  std::vector<std::uint64_t*> words[2];
  if (prepared && prepared->direct()) {
    pairs = Join::count_prepared_direct(exec, direct_keys(plan, plan.probe, probe), *prepared, kind, workspace.get());
  } else if (prepared) {
    const kernels::JoinKeys pk =
        encode_join_side<B>(exec, plan, plan.probe, probe, remaps[plan.probe], held, words[plan.probe]);
    pairs = Join::count_prepared(exec, pk, *prepared, kind, workspace.get());
  } else if (const auto [lo, span] = direct_range<B>(exec, plan, build); span > 0) {
    pairs = Join::count_direct(exec, direct_keys(plan, plan.probe, probe), direct_keys(plan, plan.build, build), lo,
                               span, kind, workspace.get());
  } else {
    kernels::JoinKeys keys[2];
    for (int s = 0; s < 2; ++s) keys[s] = encode_join_side<B>(exec, plan, s, *side[s], remaps[s], held, words[s]);
    int bits[kernels::kMaxKeyWords];
    kernels::key_bits(plan.enc[plan.build], bits);
    pairs = Join::count(exec, keys[plan.probe], keys[plan.build], plan.enc[0].width(), bits, kind, workspace.get());
  }
  slab::detail::ScratchBytes rows(exec, static_cast<std::size_t>(std::max<std::int64_t>(pairs, 1)) * 16);
  auto* pi = static_cast<std::int64_t*>(rows.get());
  std::int64_t* bi = pi + std::max<std::int64_t>(pairs, 1);
  Join::fill(exec, np, nb, kind, workspace.get(), pairs, pi, bi);
  const bool probe_missing = Join::any_missing(exec, pi, pairs), build_missing = Join::any_missing(exec, bi, pairs);

  // write_output's masks, then one gather per column.
  std::vector<bool> masks;
  for (const auto& o : plan.out) {
    if (o.key >= 0) {
      const bool pm = probe.ncols() && probe.valid(plan.enc[plan.probe].cols[o.key]);
      const bool bm = build.ncols() && build.valid(plan.enc[plan.build].cols[o.key]);
      masks.push_back(pm || bm || (probe_missing && build_missing));
    } else {
      const bool from_probe = o.side == plan.probe;
      const BatchView& src = from_probe ? probe : build;
      masks.push_back((src.ncols() && src.valid(o.col)) || (from_probe ? probe_missing : build_missing));
    }
  }
  BatchBuilder bb(ctx, pairs, plan.types, masks);
  for (std::size_t oc = 0; oc < plan.out.size() && pairs > 0; ++oc) {
    const OutSpec& o = plan.out[oc];
    const ElementType type = plan.types[oc];
    if (o.key >= 0) {
      const auto k = static_cast<std::size_t>(o.key);
      const kernels::JoinSource first{column_of(plan.probe, plan.enc[plan.probe].cols[k], type), remaps[plan.probe][k]};
      const kernels::JoinSource second{column_of(plan.build, plan.enc[plan.build].cols[k], type),
                                       remaps[plan.build][k]};
      const bool fill_from_build = probe_missing && build.ncols();
      Join::gather(exec, first, pi, fill_from_build ? &second : nullptr, bi, pairs, bb.data(oc), bb.valid(oc));
    } else {
      const bool from_probe = o.side == plan.probe;
      const kernels::JoinSource src{column_of(o.side, o.col, type), nullptr};
      Join::gather(exec, src, from_probe ? pi : bi, nullptr, nullptr, pairs, bb.data(oc), bb.valid(oc));
    }
  }
}

/// Hot keys of a hash join: keys (by shuffle hash) with so many rows on one side that their partition pair
/// would not fit well under the memory limit (more than the budget of one of the 16 buffers a join round may
/// hold at once with spills around it: about 1/16 of the limit), found from a strided sample of both
/// sides' key hashes (gathered on every rank, so every rank decides alike). Each maps to the side whose rows
/// of that key are replicated to every partition pair; the other side's rows of it are spread over all
/// partitions instead of hashed to one. The replicated side is the build side, or for inner joins the side
/// with fewer rows of that key. Collective.
/// Also estimates the join's matched rows, summed over ranks (`matches`, from the same samples), so that the
/// partition count can follow the output and not only the inputs (a many-to-many key multiplies rows).
/// `device`: the samples' hashes are taken on the device (detail::sample_row_hashes, bitwise the host's), so that
/// only they leave it.
std::unordered_map<std::uint64_t, int> find_hot_keys(const Frame* sides[2], const std::vector<std::size_t> keys[2],
                                                     JoinKind how, int build, double& matches, bool device) {
  Engine& engine = sides[0]->engine();
  constexpr std::uint32_t kHeldAtOnce = 16;
  const std::uint64_t budget = engine.comm().allreduce(engine.memory().budget(kHeldAtOnce), ReduceOp::min);
  std::unordered_map<std::uint64_t, std::int64_t> est[2];
  std::int64_t threshold[2];
  for (int s = 0; s < 2; ++s) {
    const Frame& f = *sides[s];
    std::uint64_t row_bytes = 1;
    for (const auto& fl : f.schema().fields()) row_bytes += element_size(fl.type);
    threshold[s] = static_cast<std::int64_t>(std::max<std::uint64_t>(budget / row_bytes, 1));
    const std::int64_t stride = std::max<std::int64_t>(threshold[s] / 32, 1);
    const Schema schema = f.schema();
    const std::vector<std::size_t> k = keys[s];
    std::vector<Chunk> tasks;
    const auto dict =
        device ? std::make_shared<const std::vector<std::vector<std::uint64_t>>>(detail::dictionary_hashes(schema, k))
               : nullptr;
    for (const auto& part : f.partitions())
      if (device)
        tasks.push_back(engine.tasks().submit(
            "merge-sample", {part},
            [k, stride, dict](TaskContext& ctx) {
              const BatchView b = input_batch(ctx, 0);
              const std::int64_t m = (b.nrows() + stride - 1) / stride;
              if (m == 0) return;
              auto out = ctx.output(static_cast<std::size_t>(m) * sizeof(std::uint64_t));
              detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto) {
                detail::sample_row_hashes(ctx, exec, b, k, *dict, stride, reinterpret_cast<std::uint64_t*>(out.data()));
              });
            },
            device_task()));
      else
        tasks.push_back(engine.tasks().submit("merge-sample", {part}, [schema, k, stride](TaskContext& ctx) {
          const BatchView b = input_batch(ctx, 0);
          std::vector<std::int64_t> rows;
          for (std::int64_t i = 0; i < b.nrows(); i += stride) rows.push_back(i);
          if (rows.empty()) return;
          std::vector<std::byte> tmp;
          take_rows(b, rows, tmp);
          const auto h = hash_rows(BatchView(tmp), schema, k);
          auto out = ctx.output_as<std::uint64_t>(h.size());
          std::copy(h.begin(), h.end(), out.begin());
        }));
    engine.tasks().persist(tasks);
    std::vector<std::uint64_t> mine, all;
    engine.comm().run_collectively([&] {  // read outside any task: a failure on one rank fails on every rank
      for (const auto& t : tasks)
        if (t.buffer()) {
          const Pin pin = t.buffer()->pin();
          const auto w = HostView(pin).as<std::uint64_t>();
          mine.insert(mine.end(), w.begin(), w.end());
        }
    });
    engine.comm().allgatherv(std::span<const std::uint64_t>(mine), all);
    for (auto h : all) est[s][h] += stride;
  }
  matches = 0;
  for (const auto& [h, n] : est[0]) {
    const auto other = est[1].find(h);
    if (other != est[1].end()) matches += static_cast<double>(n) * static_cast<double>(other->second);
  }
  std::unordered_map<std::uint64_t, int> hot;
  for (int s = 0; s < 2; ++s)
    for (const auto& [h, n] : est[s]) {
      if (n < threshold[s] || hot.count(h)) continue;
      int rep = build;
      if (how == JoinKind::inner) {
        const auto other = est[1 - s].find(h);
        const std::int64_t m = other == est[1 - s].end() ? 0 : other->second;
        if (m != n) rep = m < n ? 1 - s : s;  // replicate the side with fewer rows of the key
      }
      hot.emplace(h, rep);
    }
  return hot;
}

/// The hot keys as the device kernels take them: hashes sorted, each with its replicated side.
detail::HotKeys sorted_hot_keys(const std::unordered_map<std::uint64_t, int>& hot) {
  std::vector<std::pair<std::uint64_t, int>> sorted(hot.begin(), hot.end());
  std::sort(sorted.begin(), sorted.end());
  detail::HotKeys out;
  for (const auto& [h, side] : sorted) {
    out.hashes.push_back(h);
    out.sides.push_back(static_cast<std::uint8_t>(side));
  }
  return out;
}

/// Rows of `f` whose key is hot with `side` replicated, from every rank (allgatherv), as one batch. `device`
/// (merge's choice): they are picked on the device, so only they leave it. Collective.
std::shared_ptr<const std::vector<std::byte>> replicated_rows(
    const Frame& f, const std::vector<std::size_t>& keys,
    const std::shared_ptr<const std::unordered_map<std::uint64_t, int>>& hot, int side, bool device) {
  Engine& engine = f.engine();
  const Schema schema = f.schema();
  std::vector<Chunk> tasks;
  if (device) {
    auto dict =
        std::make_shared<const std::vector<std::vector<std::uint64_t>>>(detail::dictionary_hashes(schema, keys));
    auto hk = std::make_shared<const detail::HotKeys>(sorted_hot_keys(*hot));
    for (const auto& part : f.partitions())
      tasks.push_back(engine.tasks().submit(
          "merge-hot-rows", {part},
          [keys, dict, hk, side](TaskContext& ctx) {
            const BatchView b = input_batch(ctx, 0);
            const std::int64_t n = b.nrows();
            if (n == 0) return;
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              using B = typename decltype(tag)::type;
              slab::detail::ScratchBytes rows(exec, static_cast<std::size_t>(n) * sizeof(std::int64_t));
              auto* r = static_cast<std::int64_t*>(rows.get());
              const std::int64_t k = detail::hot_rows_of_side(ctx, exec, b, keys, *dict, *hk, side, r);
              if (k > 0) detail::take_rows_on<B>(ctx, exec, b, r, k);  // none: no batch, as the host
            });
          },
          device_task()));
  } else {
    for (const auto& part : f.partitions())
      tasks.push_back(engine.tasks().submit("merge-hot-rows", {part}, [schema, keys, hot, side](TaskContext& ctx) {
        const BatchView b = input_batch(ctx, 0);
        const auto h = hash_rows(b, schema, keys);
        std::vector<std::int64_t> rows;
        for (std::size_t i = 0; i < h.size(); ++i) {
          const auto it = hot->find(h[i]);
          if (it != hot->end() && it->second == side) rows.push_back(static_cast<std::int64_t>(i));
        }
        if (!rows.empty()) take_rows(b, rows, ctx);
      }));
  }
  engine.tasks().persist(tasks);
  std::vector<std::byte> mine, all;
  const auto types = types_of(schema);
  engine.comm().run_collectively([&] {  // read outside any task: a failure on one rank fails on every rank
    std::vector<std::pair<Pin, BatchView>> views;
    std::vector<BatchView> bv;
    for (const auto& t : tasks)
      if (t.buffer()) {
        views.push_back(view_chunk(t));
        bv.push_back(views.back().second);
      }
    if (!bv.empty()) concat_batches(bv, types, mine);
  });
  const VCounts vc = engine.comm().allgatherv(std::span<const std::byte>(mine), all);
  std::vector<BatchView> bv;
  for (std::size_t r = 0; r < vc.counts.size(); ++r)
    if (vc.counts[r]) bv.emplace_back(std::span<const std::byte>(all.data() + vc.displs[r], vc.counts[r]));
  auto out = std::make_shared<std::vector<std::byte>>();
  if (!bv.empty()) concat_batches(bv, types, *out);
  return out;
}

}  // namespace

Frame merge(const Frame& left, const Frame& right, const std::vector<std::string>& on, const MergeOptions& options) {
  const Schema* sch[2] = {&left.schema(), &right.schema()};
  SLAB_EXPECTS(!on.empty(), InvalidArgument, "merge: no key columns");
  const bool device =
      detail::takes_device_paths(left) && on.size() <= static_cast<std::size_t>(kernels::kMaxKeyColumns);
  if (!device) note_host_fallback(left.engine(), "merge");
  auto plan = std::make_shared<JoinPlan>();
  std::vector<Dictionary> key_dicts;
  for (int s = 0; s < 2; ++s) plan->enc[s].dropna = true;
  for (std::size_t k = 0; k < on.size(); ++k) {
    std::size_t c[2];
    for (int s = 0; s < 2; ++s) {
      SLAB_EXPECTS(sch[s]->contains(on[k]), InvalidArgument,
                   std::string("merge: unknown key column '") + on[k] + "' in the " + (s ? "right" : "left") +
                       " frame (columns: " + sch[s]->to_string() + ")");
      c[s] = sch[s]->index_of(on[k]);
    }
    const ElementType t = sch[0]->type(c[0]);
    SLAB_EXPECTS(t == sch[1]->type(c[1]), TypeError,
                 "merge: key '" + on[k] + "' is " + to_string(t) + " on the left but " + to_string(sch[1]->type(c[1])) +
                     " on the right");
    Dictionary dict;
    std::vector<std::int64_t> remap[2];
    std::uint64_t card = t == ElementType::boolean ? 2 : 0;
    if (t == ElementType::string) {
      const auto& dl = *sch[0]->dictionary(c[0]);
      const auto& dr = *sch[1]->dictionary(c[1]);
      std::vector<std::string> u;
      std::set_union(dl.begin(), dl.end(), dr.begin(), dr.end(), std::back_inserter(u));
      for (int s = 0; s < 2; ++s) {
        const auto& d = s ? dr : dl;
        for (const auto& v : d) remap[s].push_back(std::lower_bound(u.begin(), u.end(), v) - u.begin());
      }
      card = std::max<std::size_t>(1, u.size());
      dict = make_dictionary(std::move(u));
    }
    for (int s = 0; s < 2; ++s) {
      plan->enc[s].cols.push_back(c[s]);
      plan->enc[s].types.push_back(t);
      plan->enc[s].card.push_back(card);
      plan->enc[s].remap.push_back(std::move(remap[s]));
    }
    key_dicts.push_back(dict);
  }
  for (int s = 0; s < 2; ++s) {
    auto remaps = std::move(plan->enc[s].remap);
    plan->enc[s].init();
    plan->enc[s].remap = std::move(remaps);
  }
  // Output schema: keys, left non-keys, right non-keys (suffixes on clashes).
  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  for (std::size_t k = 0; k < on.size(); ++k) {
    plan->out.push_back({0, plan->enc[0].cols[k], static_cast<int>(k)});
    fields.push_back({on[k], plan->enc[0].types[k]});
    dicts.push_back(key_dicts[k]);
  }
  auto is_key = [&](const std::string& n) { return std::find(on.begin(), on.end(), n) != on.end(); };
  for (int s = 0; s < 2; ++s)
    for (std::size_t c = 0; c < sch[s]->size(); ++c) {
      const std::string& n = sch[s]->name(c);
      if (is_key(n)) continue;
      const bool clash = sch[1 - s]->contains(n) && !is_key(n);
      plan->out.push_back({s, c, -1});
      fields.push_back({clash ? n + (s ? options.suffix_right : options.suffix_left) : n, sch[s]->type(c)});
      dicts.push_back(sch[s]->dictionary(c));
    }
  Schema out_schema(fields, dicts);
  plan->types = types_of(out_schema);

  Engine& engine = left.engine();
  Comm& comm = engine.comm();
  {  // the build side is gathered/shuffled from persisted partitions (Frame is a shared handle)
    Frame l = left, r = right;
    l.persist();
    r.persist();
  }
  // Packing ranges over both sides (one pass when an int/float key is part of a multi-word key).
  const int nw = plan->enc[0].nwords;
  if (nw == 1 && !plan->enc[0].static_ranges()) {
    for (auto& e : plan->enc) e.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(nw, std::numeric_limits<std::uint64_t>::max()), maxs(nw, 0);
    if (plan->enc[0].static_ranges()) {
      plan->enc[0].update_ranges(BatchView(), mins, maxs);
    } else {
      for (int s = 0; s < 2; ++s)  // on the device where the frames are
        detail::fold_key_ranges(s ? right : left, plan->enc[s], mins, maxs, "merge-ranges");
      comm.allreduce(std::span<std::uint64_t>(mins), ReduceOp::min);
      comm.allreduce(std::span<std::uint64_t>(maxs), ReduceOp::max);
    }
    for (auto& e : plan->enc) e.set_ranges(mins, maxs);
  }
  plan->direct = plan->enc[0].packed && plan->enc[0].range <= (1u << 21) ? plan->enc[0].range : 0;

  // Strategy and roles.
  std::int64_t bytes[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    const Frame& f = s ? right : left;
    std::int64_t rowbytes = 0;
    for (std::size_t c = 0; c < f.schema().size(); ++c)
      rowbytes += static_cast<std::int64_t>(element_size(f.schema().type(c)));
    bytes[s] = f.len() * rowbytes;  // collective (persists)
  }
  int bside = options.how == JoinKind::right ? 0 : 1;  // the side that may be broadcast
  if (options.how == JoinKind::inner && bytes[0] < bytes[1]) bside = 0;
  bool broadcast = false;
  if (options.how == JoinKind::outer)
    broadcast = false;
  else if (options.strategy == JoinStrategy::broadcast)
    broadcast = true;
  else if (options.strategy == JoinStrategy::automatic) {
    // A broadcast join holds the whole small side on every rank, beside a probe partition, the build table and
    // the output: four buffers. Every rank decides alike (the smallest budget).
    constexpr std::uint32_t kBroadcastHeld = 4;
    const std::uint64_t budget = engine.comm().allreduce(engine.memory().budget(kBroadcastHeld), ReduceOp::min);
    broadcast = static_cast<std::uint64_t>(bytes[bside]) <= std::min(options.broadcast_threshold, budget);
  }
  plan->build = broadcast ? bside : (options.how == JoinKind::right ? 0 : 1);
  plan->probe = 1 - plan->build;
  plan->keep_probe = options.how == JoinKind::outer || (options.how == JoinKind::left && plan->probe == 0) ||
                     (options.how == JoinKind::right && plan->probe == 1);
  plan->keep_build = options.how == JoinKind::outer;
  const Frame& probe_frame = plan->probe == 0 ? left : right;
  const Frame& build_frame = plan->build == 0 ? left : right;

  auto bt = std::make_shared<BuildTable>();
  std::vector<Chunk> outputs;
  MergeStats stats;
  stats.broadcast = broadcast;
  const auto probe_types = types_of(probe_frame.schema());
  if (broadcast) {
    std::vector<std::byte> mine;
    comm.run_collectively([&] {
      (void)concat_local_partitions(build_frame, mine);
      mine.resize(pad8(mine.size()));
    });
    std::vector<std::byte> all;
    const VCounts vc = comm.allgatherv(std::span<const std::byte>(mine), all);
    std::vector<BatchView> bv;
    for (std::size_t r = 0; r < vc.counts.size(); ++r)
      if (vc.counts[r]) bv.emplace_back(std::span<const std::byte>(all.data() + vc.displs[r], vc.counts[r]));
    concat_batches(bv, types_of(build_frame.schema()), bt->bytes);
    bt->batch = BatchView(std::span<const std::byte>(bt->bytes));
    // Outside any task, so a failure here (the build side's tier full on one rank) is agreed on by every rank: the
    // others would otherwise go on into the probes' exchanges alone and wait there.
    comm.run_collectively([&] {
      if (!device) build_table(*plan, *bt);
      if (!device || bt->bytes.empty()) return;
      // The build side in the device tier once, sorted once, for every probe.
      const ExecutionContext& context = engine.execution();
      bt->on_device = engine.memory().allocate(bt->bytes.size(), "merge build side");
      const Pin pin = bt->on_device->pin();
      slab::copy(pin.data(), bt->bytes.data(), bt->bytes.size(), context);
      const BatchView build(std::span<const std::byte>(pin.data(), pin.size()), context);
      detail::with_planned_backend(context, [&](auto tag) {
        slab::detail::KernelScratch scratch(engine.memory());
        Pin prepared;
        bt->prepared_layout = prepare_build_side<typename decltype(tag)::type>(
            scratch.exec(context), context, *plan, build, [&](std::size_t bytes) {
              bt->prepared = engine.memory().allocate(bytes, "merge prepared build side");
              prepared = bt->prepared->pin();
              return static_cast<void*>(prepared.data());
            });
      });
    });
    for (const auto& p : probe_frame.partitions()) {
      outputs.push_back(engine.tasks().submit(
          "merge-probe", {p},
          [plan, bt, device](TaskContext& ctx) {
            BatchView b = input_batch(ctx, 0);
            if (device) {
              Pin pin, prepared;
              BatchView build = bt->batch;
              if (bt->on_device) {
                pin = bt->on_device->pin();
                build = BatchView(std::span<const std::byte>(pin.data(), pin.size()), ctx.execution());
              }
              if (bt->prepared) prepared = bt->prepared->pin();
              detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
                using B = typename decltype(tag)::type;
                const kernels::PreparedBuild sorted =
                    bt->prepared ? prepared_at<B>(bt->prepared_layout, prepared.data()) : kernels::PreparedBuild{};
                join_on_device<B>(ctx, exec, *plan, b, build, bt->prepared ? &sorted : nullptr);
              });
              return;
            }
            thread_local std::vector<std::int64_t> pi, bi;
            probe_pairs(*plan, *bt, b, pi, bi, nullptr);
            write_output(*plan, b, *bt, pi, bi, ctx);
          },
          device ? device_task() : TaskOptions{}));
    }
    stats.probe_rows = probe_frame.local_len();
  } else {
    // Both sides hash-shuffled into the same nparts partitions per rank (equal keys meet in partition pair
    // j), then one task per pair: hash the build partition, probe it, append unmatched build rows (outer).
    // One pair is resident at a time and every output is a spillable chunk. Skew (not for outer joins): a
    // hot key's rows on one side are spread over every partition and its rows on the other side are
    // replicated to every pair (find_hot_keys), so no partition holds a hot key's rows alone.
    const Frame* sides[2] = {&left, &right};
    std::vector<std::size_t> keys[2];
    for (int s = 0; s < 2; ++s) keys[s] = sch[s]->indices_of(on);
    double matches = 0;
    auto hot = std::make_shared<const std::unordered_map<std::uint64_t, int>>(
        options.how == JoinKind::outer ? std::unordered_map<std::uint64_t, int>{}
                                       : find_hot_keys(sides, keys, options.how, plan->build, matches, device));
    // Partitions small enough for the inputs and for the expected output of a pair (the memory manager's budget
    // of eight buffers each, as choose_nparts sizes inputs).
    int nparts = std::max(choose_nparts(build_frame), choose_nparts(probe_frame));
    {
      std::uint64_t out_row_bytes = 0;
      for (int s = 0; s < 2; ++s)
        for (const auto& fl : sch[s]->fields()) out_row_bytes += element_size(fl.type) + 1;
      constexpr std::uint32_t kHeldAtOnce = 8;
      const double budget = static_cast<double>(comm.allreduce(engine.memory().budget(kHeldAtOnce), ReduceOp::min));
      const double per_rank = matches * static_cast<double>(out_row_bytes) / comm.size();
      nparts = std::max<int>(nparts, static_cast<int>(std::min(std::ceil(per_rank / std::max(budget, 1.0)), 65536.0)));
    }
    const auto partitioner = detail::Partitioner::hash(comm.size(), nparts);
    std::shared_ptr<const std::vector<std::byte>> rep[2];
    Frame shuffled[2];
    for (int s = 0; s < 2; ++s) {
      bool any = false;
      for (const auto& kv : *hot) any |= kv.second == s;
      if (any) rep[s] = replicated_rows(*sides[s], keys[s], hot, s, device);
      const Schema schema = *sch[s];
      if (device) {  // the same route on the device kernels (shuffle_device.hpp)
        auto hk = std::make_shared<const detail::HotKeys>(sorted_hot_keys(*hot));
        auto dict =
            std::make_shared<const std::vector<std::vector<std::uint64_t>>>(detail::dictionary_hashes(schema, keys[s]));
        shuffled[s] = detail::shuffle_routed_on_device(
            *sides[s], nparts,
            [k = keys[s], dict, hk, s, nranks = comm.size(), nparts](TaskContext& ctx, const kernels::Exec& exec,
                                                                     const BatchView& b, std::uint32_t* bucket) {
              detail::route_by_row_hash(ctx, exec, b, k, *dict, nranks, nparts, hk.get(), s, bucket);
            },
            "merge-shuffle");
        continue;
      }
      shuffled[s] = shuffle_routed(
          *sides[s], nparts,
          [schema, k = keys[s], hot, s, partitioner](const BatchView& b, std::vector<std::uint32_t>& bucket) {
            const auto h = hash_rows(b, schema, k);
            const std::uint64_t nb = partitioner.buckets();
            bucket.resize(h.size());
            for (std::size_t i = 0; i < h.size(); ++i) {
              const auto it = hot->empty() ? hot->end() : hot->find(h[i]);
              if (it == hot->end())
                bucket[i] = partitioner.bucket_of_hash(h[i]);
              else
                bucket[i] = it->second == s ? kDropRow : static_cast<std::uint32_t>((h[i] + i) % nb);
            }
          },
          "merge-shuffle");
    }
    const int pr = plan->probe, bu = plan->build;
    for (int j = 0; j < nparts; ++j)
      outputs.push_back(engine.tasks().submit(
          "merge-join", {shuffled[pr].partitions()[j], shuffled[bu].partitions()[j]},
          [plan, rp = rep[pr], rb = rep[bu], tp = types_of(*sch[pr]), tb = types_of(*sch[bu]),
           device](TaskContext& ctx) {
            // Replicated hot rows join this pair's side.
            std::vector<std::byte> ps, bs;
            std::vector<Pin> held;  // the device path's concatenations, in the device tier while the task runs
            auto with = [&ctx, &held, device](const BatchView& part,
                                              const std::shared_ptr<const std::vector<std::byte>>& extra,
                                              const std::vector<ElementType>& types, std::vector<std::byte>& store) {
              if (!extra || extra->empty()) return part;
              const BatchView both[2] = {part, BatchView(std::span<const std::byte>(*extra))};
              if (device) {
                const std::uint64_t bytes = concat_batches_bytes(both, types);
                held.push_back(ctx.memory().allocate(bytes, "merge hot rows")->pin());
                const std::span<std::byte> out(held.back().data(), bytes);
                concat_batches(both, types, out, ctx.execution());
                return BatchView(out, ctx.execution());
              }
              concat_batches(both, types, store);
              return BatchView(std::span<const std::byte>(store));
            };
            const BatchView probe = with(input_batch(ctx, 0), rp, tp, ps);
            BuildTable t;
            t.batch = with(input_batch(ctx, 1), rb, tb, bs);
            if (device) {
              detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
                join_on_device<typename decltype(tag)::type>(ctx, exec, *plan, probe, t.batch);
              });
              return;
            }
            build_table(*plan, t);
            thread_local std::vector<std::int64_t> pi, bi;
            probe_pairs(*plan, t, probe, pi, bi, plan->keep_build ? &t.matched : nullptr);
            if (plan->keep_build)
              for (std::size_t i = 0; i < t.matched.size(); ++i)
                if (!t.matched[i]) {
                  pi.push_back(-1);
                  bi.push_back(static_cast<std::int64_t>(i));
                }
            write_output(*plan, probe, t, pi, bi, ctx);
          },
          device ? device_task() : TaskOptions{}));
    stats.build_rows = -1;
    stats.probe_rows = -1;
  }
  if (broadcast) stats.build_rows = bt->batch.nrows();
  if (options.stats) *options.stats = stats;
  return Frame(engine, out_schema, outputs);
}

}  // namespace slab::frame
