#include "frame/groupby/plan.hpp"

#include <algorithm>
#include <limits>

#include "frame/groupby/holistic.hpp"
#include "frame/key_ranges.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame::detail {

KeyEncoder make_key_encoder(const Schema& schema, const std::vector<std::string>& keys, bool dropna) {
  SLAB_EXPECTS(!keys.empty(), InvalidArgument, "groupby: no key columns");
  KeyEncoder enc;
  enc.dropna = dropna;
  for (const auto& k : keys) {
    const std::size_t c = schema.index_of(k);
    SLAB_EXPECTS(std::find(enc.cols.begin(), enc.cols.end(), c) == enc.cols.end(), InvalidArgument,
                 "groupby: key '" + k + "' given twice");
    enc.cols.push_back(c);
    enc.types.push_back(schema.type(c));
    enc.card.push_back(schema.type(c) == ElementType::boolean ? 2
                       : schema.type(c) == ElementType::string
                           ? std::max<std::uint64_t>(1, schema.dictionary(c) ? schema.dictionary(c)->size() : 0)
                           : 0);
  }
  enc.init();
  return enc;
}

GroupbyPlan make_plan(const Schema& schema, const std::vector<std::string>& keys,
                      const std::vector<Aggregation>& aggregations, const GroupbyOptions& options) {
  GroupbyPlan plan;
  KeyEncoder& enc = plan.proto.enc;
  enc = make_key_encoder(schema, keys, options.dropna);
  std::vector<Field> out_fields;
  std::vector<Dictionary> out_dicts;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    out_fields.push_back(schema.field(enc.cols[k]));
    out_dicts.push_back(schema.dictionary(enc.cols[k]));
  }
  std::vector<OutCol>& out_cols = plan.out_cols;
  for (const auto& a : aggregations) {
    const std::size_t c = schema.index_of(a.column);
    SLAB_EXPECTS(!a.ops.empty(), InvalidArgument, "groupby: no aggregation for column '" + a.column + "'");
    SLAB_EXPECTS(std::find(enc.cols.begin(), enc.cols.end(), c) == enc.cols.end(), InvalidArgument,
                 "groupby: column '" + a.column + "' is a key and cannot be aggregated");
    ColAgg ca;
    ca.col = c;
    ca.name = a.column;
    ca.type = schema.type(c);
    ca.isf = ca.type == ElementType::float64;
    std::size_t nq = 0;  // quantiles seen so far (their q in a.quantiles)
    for (AggOp op : a.ops) {
      if (op == AggOp::size) {
        plan.proto.need_size = true;
        out_cols.push_back({-1, op});
        out_fields.push_back({"size", ElementType::int64});
        out_dicts.push_back(nullptr);
        continue;
      }
      if (op == AggOp::median || op == AggOp::quantile) {
        SLAB_EXPECTS(
            ca.type == ElementType::int64 || ca.type == ElementType::float64 || ca.type == ElementType::boolean,
            TypeError,
            std::string("groupby: ") + to_string(op) + " of " + frame::to_string(ca.type) + " column '" + a.column +
                "' is not supported (int64, float64 or boolean)");
        double q = kMedian;
        if (op == AggOp::quantile) {
          q = nq < a.quantiles.size() ? a.quantiles[nq] : 0.5;
          ++nq;
          SLAB_EXPECTS(q >= 0 && q <= 1, InvalidArgument,
                       "groupby: quantile q = " + format_q(q) + " of column '" + a.column + "' is outside [0, 1]");
        }
        ca.ops.push_back(op);
        out_cols.push_back({static_cast<int>(plan.proto.aggs.size()), op, static_cast<int>(ca.holistic.size())});
        ca.holistic.push_back(q);
        out_fields.push_back({agg_column_name(a.column, op, q), ElementType::float64});
        out_dicts.push_back(nullptr);
        continue;
      }
      const bool numeric_op = op == AggOp::sum || op == AggOp::mean || op == AggOp::std || op == AggOp::var;
      SLAB_EXPECTS(
          !(numeric_op && (ca.type == ElementType::string || ca.type == ElementType::timestamp)) &&
              !(op != AggOp::sum && op != AggOp::mean && numeric_op && ca.type == ElementType::boolean && false),
          TypeError,
          std::string("groupby: ") + to_string(op) + " of " + frame::to_string(ca.type) + " column '" + a.column +
              "' is not supported");
      ca.ops.push_back(op);
      out_cols.push_back({static_cast<int>(plan.proto.aggs.size()), op});
      ElementType t = ElementType::float64;
      Dictionary d;
      switch (op) {
        case AggOp::count:
        case AggOp::nunique:
          t = ElementType::int64;
          break;
        case AggOp::sum:
          t = ca.isf ? ElementType::float64 : ElementType::int64;
          break;
        case AggOp::min:
        case AggOp::max:
        case AggOp::first:
        case AggOp::last:
          t = ca.type;
          d = schema.dictionary(c);
          break;
        default:
          break;
      }
      out_fields.push_back({a.column + "_" + to_string(op), t});
      out_dicts.push_back(d);
    }
    SLAB_EXPECTS(nq >= a.quantiles.size(), InvalidArgument,
                 "groupby: column '" + a.column + "' has " + std::to_string(a.quantiles.size()) + " quantiles for " +
                     std::to_string(nq) + " quantile aggregations");
    ca.plan();
    plan.proto.aggs.push_back(std::move(ca));
  }
  plan.out_schema = Schema(out_fields, out_dicts);  // throws on duplicate output names (every rank)
  return plan;
}


void plan_key_ranges(GroupbyPlan& plan, const Frame& frame) {
  Engine& engine = frame.engine();
  Comm& comm = engine.comm();
  KeyEncoder& enc = plan.proto.enc;
  // A single key needs no packing.
  if (enc.nwords == 1 && !enc.static_ranges()) {
    enc.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(enc.nwords, std::numeric_limits<std::uint64_t>::max()), maxs(enc.nwords, 0);
    if (enc.static_ranges()) {
      enc.update_ranges(BatchView(), mins, maxs);
    } else {
      fold_key_ranges(frame, enc, mins, maxs, "groupby-ranges");  // on the device where the frame is
      comm.allreduce(std::span<std::uint64_t>(mins), ReduceOp::min);
      comm.allreduce(std::span<std::uint64_t>(maxs), ReduceOp::max);
    }
    enc.set_ranges(mins, maxs);
  }
  plan.W = enc.width();
  plan.direct = enc.packed && enc.range <= (1u << 21) ? enc.range : 0;
  plan.R = plan.W + 1;
  for (const auto& a : plan.proto.aggs) plan.R += a.record_words();
}

}  // namespace slab::frame::detail
