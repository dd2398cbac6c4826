// Distributed merge: broadcast (allgatherv of the build side) or hash shuffle of both sides, then a
// build/probe hash join per probe batch. Keys go through the same order-preserving words as groupby.
#include "slab/frame/merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>

#include "frame/hash_table.hpp"
#include "frame/key_words.hpp"
#include "slab/comm/comm.hpp"

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
  std::unique_ptr<GroupIndex> index;
  std::vector<std::int64_t> offsets, rows;
  std::vector<std::uint8_t> matched;
};

struct JoinPlan {
  KeyEncoder enc[2];
  std::vector<OutSpec> out;
  std::vector<DType> types;
  int probe = 0, build = 1;
  bool keep_probe = false, keep_build = false;
  std::uint64_t direct = 0;
};

void gather_column(const BatchView& src, std::size_t c, const std::int64_t* idx, std::size_t n, BatchBuilder& bb,
                   std::size_t oc, std::size_t begin, const std::vector<std::int64_t>* remap) {
  const DType t = src.type(c);
  const std::size_t es = dtype_size(t);
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
      if (!ok && t == DType::float64) {
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
      std::vector<std::int64_t> pidx(pi), bidx(n, -1);
      for (std::size_t i = 0; i < n; ++i)
        if (pi[i] < 0) bidx[i] = bi[i];
      if (probe.ncols()) gather_column(probe, pe.cols[o.key], pidx.data(), n, bb, oc, 0, &pe.remap[o.key]);
      if (probe_missing && bt.batch.ncols()) {
        // overwrite the rows the probe side lacks
        std::vector<std::byte> tmp;
        std::vector<DType> t1{plan.types[oc]};
        BatchBuilder one(tmp, static_cast<std::int64_t>(n), t1, {true});
        gather_column(bt.batch, be.cols[o.key], bidx.data(), n, one, 0, 0, &be.remap[o.key]);
        const std::size_t es = dtype_size(plan.types[oc]);
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

/// Encode keys of `b` with `enc`; gids in the build index (-1 none / null).
std::vector<std::int32_t> lookup(const KeyEncoder& enc, const GroupIndex& index, const BatchView& b) {
  const auto n = static_cast<std::size_t>(b.nrows());
  std::vector<std::int32_t> gid(n, -1);
  if (n == 0) return gid;
  std::vector<std::vector<std::uint64_t>> words;
  std::vector<std::uint8_t> keep;
  const std::int64_t kept = enc.encode(b, words, keep);
  std::vector<const std::uint64_t*> wp;
  for (auto& w : words) wp.push_back(w.data());
  index.lookup(wp.data(), n, gid.data());
  if (kept != static_cast<std::int64_t>(n))
    for (std::size_t i = 0; i < n; ++i)
      if (!keep[i]) gid[i] = -1;
  return gid;
}

void build_table(const JoinPlan& plan, BuildTable& bt) {
  bt.batch = BatchView(std::span<const std::byte>(bt.bytes));
  const KeyEncoder& enc = plan.enc[plan.build];
  const auto n = static_cast<std::size_t>(bt.batch.nrows());
  bt.index = std::make_unique<GroupIndex>(enc.width(), plan.direct, std::max<std::size_t>(n, 16));
  std::vector<std::int32_t> gid(n, -1);
  if (n) {
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
  const std::size_t G = bt.index->size();
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
  const auto gid = lookup(plan.enc[plan.probe], *bt.index, b);
  pi.clear();
  bi.clear();
  std::size_t total = 0;
  for (auto g : gid) total += g >= 0 ? bt.offsets[g + 1] - bt.offsets[g] : (plan.keep_probe ? 1 : 0);
  pi.reserve(total);
  bi.reserve(total);
  for (std::size_t i = 0; i < gid.size(); ++i) {
    const std::int32_t g = gid[i];
    if (g < 0) {
      if (plan.keep_probe) {
        pi.push_back(static_cast<std::int64_t>(i));
        bi.push_back(-1);
      }
      continue;
    }
    for (std::int64_t k = bt.offsets[g]; k < bt.offsets[g + 1]; ++k) {
      pi.push_back(static_cast<std::int64_t>(i));
      bi.push_back(bt.rows[k]);
      if (matched) (*matched)[bt.rows[k]] = 1;
    }
  }
}

/// Every local partition of `f` concatenated into one batch in `out` (8-aligned).
void local_concat(const Frame& f, std::vector<std::byte>& out) {
  std::vector<std::pair<Pin, BatchView>> views;
  std::vector<BatchView> bv;
  for (const auto& p : f.partitions()) {
    views.push_back(view_chunk(p));
    if (views.back().second.ncols()) bv.push_back(views.back().second);
  }
  concat_batches(bv, types_of(f.schema()), out);
}

/// Hash-route every row of `f` by its key words; returns the received batches (one per source rank).
std::vector<std::byte> shuffle_side(const Frame& f, const KeyEncoder& enc, Comm& comm,
                                    std::vector<std::size_t>& sizes) {
  const int P = comm.size();
  std::vector<std::vector<std::byte>> per(P);
  std::vector<std::vector<std::int64_t>> rows(P);
  std::vector<std::vector<std::byte>> parts;
  std::vector<BatchView> stage;
  const auto types = types_of(f.schema());
  std::vector<std::vector<std::byte>> dest_batches(P);
  std::vector<std::vector<std::vector<std::byte>>> pieces(P);
  for (const auto& p : f.partitions()) {
    auto [pin, b] = view_chunk(p);
    const auto n = static_cast<std::size_t>(b.nrows());
    if (n == 0) continue;
    std::vector<std::vector<std::uint64_t>> words;
    std::vector<std::uint8_t> keep;
    enc.encode(b, words, keep);
    for (auto& r : rows) r.clear();
    const int W = enc.width();
    std::vector<std::uint64_t> key(W);
    for (std::size_t i = 0; i < n; ++i) {
      int d = 0;
      if (keep[i]) {
        for (int w = 0; w < W; ++w) key[w] = words[w][i];
        const std::uint64_t h = W == 1 ? detail::route_hash(key[0]) : detail::hash_words(key.data(), W);
        d = static_cast<int>((h >> 16) % static_cast<std::uint64_t>(P));
      } else {
        d = static_cast<int>(i % static_cast<std::size_t>(P));  // null keys never match: spread them
      }
      rows[d].push_back(static_cast<std::int64_t>(i));
    }
    for (int d = 0; d < P; ++d) {
      if (rows[d].empty()) continue;
      pieces[d].emplace_back();
      take_rows(b, rows[d], pieces[d].back());
    }
  }
  std::vector<std::byte> send;
  std::vector<std::size_t> counts(P, 0);
  for (int d = 0; d < P; ++d) {
    std::vector<BatchView> bv;
    for (auto& piece : pieces[d]) bv.emplace_back(std::span<const std::byte>(piece));
    std::vector<std::byte> one;
    if (!bv.empty()) concat_batches(bv, types, one);
    pieces[d].clear();
    one.resize(pad8(one.size()));
    counts[d] = one.size();
    send.insert(send.end(), one.begin(), one.end());
  }
  std::vector<std::byte> recv;
  comm.alltoallv(std::span<const std::byte>(send), std::span<const std::size_t>(counts), recv, sizes);
  return recv;
}

}  // namespace

Frame merge(const Frame& left, const Frame& right, const std::vector<std::string>& on, const MergeOptions& options) {
  const Schema* sch[2] = {&left.schema(), &right.schema()};
  SLAB_EXPECTS(!on.empty(), InvalidArgument, "merge: no key columns");
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
    const DType t = sch[0]->type(c[0]);
    SLAB_EXPECTS(t == sch[1]->type(c[1]), TypeError,
                 "merge: key '" + on[k] + "' is " + to_string(t) + " on the left but " + to_string(sch[1]->type(c[1])) +
                     " on the right");
    Dictionary dict;
    std::vector<std::int64_t> remap[2];
    std::uint64_t card = t == DType::boolean ? 2 : 0;
    if (t == DType::string) {
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

  TaskQueue& queue = left.queue();
  Comm& comm = queue.comm();
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
      for (int s = 0; s < 2; ++s) {
        const Frame& f = s ? right : left;
        std::vector<Chunk> tasks;
        for (const auto& p : f.partitions())
          tasks.push_back(queue.submit("merge-ranges", {p}, [plan, s, &mins, &maxs](TaskContext& ctx) {
            plan->enc[s].update_ranges(BatchView(ctx.input(0)), mins, maxs);
          }));
        queue.persist(tasks);
      }
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
      rowbytes += static_cast<std::int64_t>(dtype_size(f.schema().type(c)));
    bytes[s] = f.len() * rowbytes;  // collective (persists)
  }
  int bside = options.how == JoinKind::right ? 0 : 1;  // the side that may be broadcast
  if (options.how == JoinKind::inner && bytes[0] < bytes[1]) bside = 0;
  bool broadcast = false;
  if (options.how == JoinKind::outer)
    broadcast = false;
  else if (comm.size() == 1 || options.strategy == JoinStrategy::broadcast)
    broadcast = true;
  else if (options.strategy == JoinStrategy::automatic)
    broadcast = static_cast<std::uint64_t>(bytes[bside]) <= options.broadcast_threshold;
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
      local_concat(build_frame, mine);
      mine.resize(pad8(mine.size()));
    });
    std::vector<std::byte> all;
    const VCounts vc = comm.allgatherv(std::span<const std::byte>(mine), all);
    std::vector<BatchView> bv;
    for (std::size_t r = 0; r < vc.counts.size(); ++r)
      if (vc.counts[r]) bv.emplace_back(std::span<const std::byte>(all.data() + vc.displs[r], vc.counts[r]));
    concat_batches(bv, types_of(build_frame.schema()), bt->bytes);
    build_table(*plan, *bt);
    for (const auto& p : probe_frame.partitions()) {
      outputs.push_back(queue.submit("merge-probe", {p}, [plan, bt](TaskContext& ctx) {
        BatchView b(ctx.input(0));
        std::vector<std::int64_t> pi, bi;
        probe_pairs(*plan, *bt, b, pi, bi, nullptr);
        write_output(*plan, b, *bt, pi, bi, ctx);
      }));
    }
    stats.probe_rows = probe_frame.local_len();
  } else {
    std::vector<std::size_t> bsz, psz;
    auto brecv = shuffle_side(build_frame, plan->enc[plan->build], comm, bsz);
    auto precv = std::make_shared<std::vector<std::byte>>(shuffle_side(probe_frame, plan->enc[plan->probe], comm, psz));
    std::vector<BatchView> bv;
    std::size_t off = 0;
    for (auto s : bsz) {
      if (s) bv.emplace_back(std::span<const std::byte>(brecv.data() + off, s));
      off += s;
    }
    concat_batches(bv, types_of(build_frame.schema()), bt->bytes);
    std::vector<std::byte>().swap(brecv);
    build_table(*plan, *bt);
    off = 0;
    for (auto s : psz) {
      if (s) {
        const BatchView b(std::span<const std::byte>(precv->data() + off, s));
        stats.probe_rows += b.nrows();
        if (plan->keep_build) {  // mark matches now so the unmatched-build task does not wait on the probes
          std::vector<std::int64_t> pi, bi;
          probe_pairs(*plan, *bt, b, pi, bi, &bt->matched);
        }
        outputs.push_back(queue.submit("merge-probe", {}, [plan, bt, precv, off, s](TaskContext& ctx) {
          const BatchView b(std::span<const std::byte>(precv->data() + off, s));
          std::vector<std::int64_t> pi, bi;
          probe_pairs(*plan, *bt, b, pi, bi, nullptr);
          write_output(*plan, b, *bt, pi, bi, ctx);
        }));
      }
      off += s;
    }
    if (plan->keep_build) {
      outputs.push_back(queue.submit("merge-unmatched", {}, [plan, bt, probe_types](TaskContext& ctx) {
        std::vector<std::int64_t> pi, bi;
        for (std::size_t i = 0; i < bt->matched.size(); ++i)
          if (!bt->matched[i]) {
            pi.push_back(-1);
            bi.push_back(static_cast<std::int64_t>(i));
          }
        std::vector<std::byte> empty;
        BatchBuilder eb(empty, 0, probe_types, {});
        write_output(*plan, eb.view(), *bt, pi, bi, ctx);
      }));
    }
  }
  stats.build_rows = bt->batch.nrows();
  if (options.stats) *options.stats = stats;
  return Frame(queue, out_schema, outputs);
}

}  // namespace slab::frame
